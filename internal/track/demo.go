package track

import (
	"fmt"
	"strconv"

	"github.com/perfbisect/perfbisect/internal/scenario"
)

// A Step is a planted change of a demo scenario: commit At (0-based)
// multiplies throughput by Factor from then on.
type Step struct {
	At     int
	Factor float64
}

// DemoScenario builds a dry-run scenario for the nightly bot: one branch,
// main, of commits an hour apart (so a 24 h night holds 24 commits), on
// the seed's workload with noise_cv 0.3 %, and the planted steps as
// labelled tps_factor calibrations. Every other commit changes nothing.
func DemoScenario(name string, commits int, steps []Step) (*scenario.Scenario, error) {
	sc := &scenario.Scenario{Header: scenario.Header{Name: name, NoiseCV: 0.003,
		Description: "[synthetic] nightly bot demo: a branch with planted throughput steps (tps_factor calibrations)",
		Workload:    scenario.Workload{Tables: 8, TableSize: 1000000, Threads: 128}}}
	factor := 1.0
	at := map[int]float64{}
	for _, s := range steps {
		if s.At <= 0 || s.At >= commits || s.Factor <= 0 {
			return nil, fmt.Errorf("step %+v: want 0 < at < %d and a positive factor", s, commits)
		}
		at[s.At] = s.Factor
	}
	for i := range commits {
		c := scenario.Commit{ID: fmt.Sprintf("c%04d", i), Subject: fmt.Sprintf("[synthetic] change %d", i)}
		switch f, ok := at[i]; {
		case i == 0:
			c.Knobs = knobs("ahi", "on", "variant", "rewrite118", "refcount_fix", "true", "tps_factor", "1.0")
			c.Subject = "[synthetic] the branch point"
		case ok:
			factor *= f
			c.Knobs = knobs("tps_factor", strconv.FormatFloat(factor, 'f', 6, 64))
			c.Subject = fmt.Sprintf("[synthetic] change %d: throughput x%.3f (planted step, tps_factor calibration)", i, f)
		}
		sc.Commits = append(sc.Commits, c)
	}
	sc.Commits[commits-1].Branches = []string{"main"}
	return sc, sc.Validate()
}

func knobs(kv ...string) scenario.Knobs {
	k := scenario.Knobs{}
	for i := 0; i+1 < len(kv); i += 2 {
		v := kv[i+1]
		k[kv[i]] = &v
	}
	return k
}

// NightlyDemo is the scenario of the nightly dry run (checked in as
// bench/nightly/nightly-demo.json, replayed by the workflow's dry-run job
// and by the track test with 6-hour nights): 216 hourly commits on main,
// so 36 nights; two 3 % regressions (commits 60 and 120) and a 4 %
// improvement (commit 180).
func NightlyDemo() (*scenario.Scenario, error) {
	return DemoScenario("nightly-demo", 216, []Step{{At: 60, Factor: 0.97}, {At: 120, Factor: 0.97}, {At: 180, Factor: 1.04}})
}
