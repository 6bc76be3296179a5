package runner

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/internal/callgrind"
)

// TestCallgrindModes is the measurement behind Callgrind's defaults
// (opt-in: PERFBISECT_CALLGRIND_EXPERIMENT=1): for each way of counting
// (the whole server between zero and dump, or only inside a query
// function: PERFBISECT_CALLGRIND_TOGGLES, comma-separated, "" for none) and each number of queries, two server starts of
// three samples each on Debian's mariadbd; it logs instructions per query,
// their spread and the wall time per start and per sample.
func TestCallgrindModes(t *testing.T) {
	if os.Getenv("PERFBISECT_CALLGRIND_EXPERIMENT") == "" {
		t.Skip("opt-in: PERFBISECT_CALLGRIND_EXPERIMENT=1")
	}
	needValgrind(t)
	ctx := context.Background()
	b := callgrindBench(t)
	ns := []int{500, 2000, 4000}
	if v := os.Getenv("PERFBISECT_CALLGRIND_QUERIES"); v != "" {
		ns = nil
		for _, f := range strings.Split(v, ",") {
			n, _ := strconv.Atoi(f)
			ns = append(ns, n)
		}
	}
	toggles := []string{"", "dispatch_command*", "do_command*"} // "": the whole server
	if v, ok := os.LookupEnv("PERFBISECT_CALLGRIND_TOGGLES"); ok {
		toggles = strings.Split(v, ",")
	}
	for _, toggle := range toggles {
		for _, n := range ns {
			cg := Callgrind{DumpDir: t.TempDir(), Toggle: toggle, WholeServer: toggle == "", Queries: n, SamplesPerStart: 3}
			s, err := b.OpenCallgrind(ctx, "/usr", "", "modes", cg)
			if err != nil {
				t.Fatal(err)
			}
			var v []float64
			var line strings.Builder
			for i := 0; i < 6; i++ {
				t0 := time.Now()
				fresh := s.Pid() == 0 || i == 3
				smp, err := s.Sample(ctx)
				if err != nil {
					t.Fatal(err)
				}
				v = append(v, smp.PerQuery)
				tag := ""
				if fresh {
					tag = " (with start " + time.Since(t0).Round(100*time.Millisecond).String() + ")"
				}
				line.WriteString(" " + strconv.FormatFloat(smp.PerQuery, 'f', 1, 64) + " [" +
					smp.Duration.Round(100*time.Millisecond).String() + tag + "]")
			}
			s.Close()
			t.Logf("toggle=%q queries=%d: spread %.3f %%:%s", toggle, n, 100*spread(v), line.String())
		}
	}
}

// TestCallgrindPlantedOptions measures candidate planted changes (opt-in:
// PERFBISECT_CALLGRIND_PLANT, option sets separated by ";", options by
// spaces): one sample of the plain server and of each option set, with
// the functions whose instructions per query changed most.
func TestCallgrindPlantedOptions(t *testing.T) {
	plants := os.Getenv("PERFBISECT_CALLGRIND_PLANT")
	if plants == "" {
		t.Skip("opt-in: PERFBISECT_CALLGRIND_PLANT='max_statement_time=100;general_log=1 log_output=FILE'")
	}
	needValgrind(t)
	ctx := context.Background()
	b := callgrindBench(t)
	toggle := os.Getenv("PERFBISECT_CALLGRIND_TOGGLE")
	cg := Callgrind{DumpDir: t.TempDir(), Toggle: toggle, WholeServer: toggle == "", Queries: 1000, SamplesPerStart: 2}
	sample := func(opts []string) *InstrSample {
		b.Server.Options = append([]string{"innodb_log_file_size=32M"}, opts...)
		s, err := b.OpenCallgrind(ctx, "/usr", "", "plant", cg)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		var smp *InstrSample
		for i := 0; i < 2; i++ {
			if smp, err = s.Sample(ctx); err != nil {
				t.Fatal(err)
			}
		}
		return smp
	}
	base := sample(nil)
	for _, plant := range strings.Split(plants, ";") {
		smp := sample(strings.Fields(plant))
		d := callgrind.Compare(callgrind.Side{Profile: base.Profile, Queries: int64(base.Queries)},
			callgrind.Side{Profile: smp.Profile, Queries: int64(smp.Queries)}, "Ir", 8, 0.5)
		var b strings.Builder
		for _, f := range d.Self {
			fmt.Fprintf(&b, "\n  self %+9.1f %s (%s)", f.Delta, f.Name, f.File)
		}
		for _, f := range d.Inclusive {
			fmt.Fprintf(&b, "\n  incl %+9.1f %s (%s)", f.Delta, f.Name, f.File)
		}
		t.Logf("%q: %.1f -> %.1f instructions per query (%+.2f %%)%s", plant, d.Before, d.After,
			100*d.Delta/d.Before, b.String())
	}
}
