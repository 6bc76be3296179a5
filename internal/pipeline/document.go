package pipeline

import (
	"context"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/perfbisect/perfbisect/internal/ahi"
	"github.com/perfbisect/perfbisect/internal/bisect"
	"github.com/perfbisect/perfbisect/internal/repo"
	"github.com/perfbisect/perfbisect/internal/report"
	"github.com/perfbisect/perfbisect/internal/report/reportgit"
)

// reportInput makes the report's input from a finished bisect. It is what
// the store keeps as the bisect's result document.
func reportInput(ctx context.Context, o *Outcome, r *repo.Repo, bench report.Benchmark, model *report.ModelNotes, scenario string) (report.Input, error) {
	in := report.Input{
		Version: report.InputVersion,
		Result:  *o.Result,
		Request: report.Request{BisectID: o.BisectID, Good: o.Request.Good, Bad: o.Request.Bad,
			RemoteURL: r.RemoteURL("origin"), DryRun: o.Request.Spec.DryRun, Model: model, Scenario: scenario},
		Benchmark: bench,
	}
	for h, n := range o.Hosts {
		in.Benchmark.Hosts = append(in.Benchmark.Hosts, report.HostRuns{Host: h, Runs: n, Speed: o.Result.HostFactors[h]})
	}
	slices.SortFunc(in.Benchmark.Hosts, func(a, b report.HostRuns) int { return strings.Compare(a.Host, b.Host) })
	for _, p := range o.Profiles {
		in.Profiles = append(in.Profiles, report.Profile{Commit: p.Commit, Parent: p.Parent, Diff: p.Diff})
	}
	for _, c := range o.Confirmations {
		rc := report.Confirmation{Old: c.Old, New: c.New, Instructions: c.Instructions, Note: c.Note}
		if x := c.TPS; x != nil {
			rc.TPS = report.TPSCheck{OldMedian: x.A.Median, NewMedian: x.B.Median, OldRuns: len(x.A.Samples), NewRuns: len(x.B.Samples),
				Delta: x.Delta, CILow: x.CILow, CIHigh: x.CIHigh, P: x.P, Verdict: x.Verdict}
		}
		in.Confirmations = append(in.Confirmations, rc)
	}
	if err := reportgit.Fill(ctx, r, &in); err != nil {
		return in, err
	}
	return in, nil
}

// Benchmark describes the dry run's workload for a report.
func (d *DryRun) Benchmark() report.Benchmark {
	w := d.Scenario.Workload
	return report.Benchmark{
		Workload: "oltp_point_select (AHI model)", Tables: w.Tables, TableSize: w.TableSize, Threads: w.Threads,
		DurationSeconds: d.Sampler.Duration.Seconds(), RandType: "uniform", BuildRecipe: "model (no build)",
		Machine:     report.Machine{CPU: ModelEnvironment.CPUModel},
		Notes:       []string{"simulated runs: the numbers do not depend on the machine", "noise_cv " + strconv.FormatFloat(d.Scenario.NoiseCV, 'g', -1, 64)},
		ConfigHash:  d.Workload.ConfigHash,
		Environment: ModelEnvironment.Fingerprint(),
	}
}

// ModelNotes lists what the dry run's numbers rest on: the model's
// fact/model labels and every calibration, for the commits the result
// names (endpoints, merge base, culprits and their parents).
func (d *DryRun) ModelNotes(ctx context.Context, res *bisect.Result) (*report.ModelNotes, error) {
	commits := []bisect.Commit{res.Good, res.Bad}
	if res.MergeBase != nil {
		commits = append(commits, *res.MergeBase)
	}
	for _, c := range res.Culprits {
		commits = append(commits, c.Commit, c.Parent)
	}
	seen := map[string]bool{}
	var cal []report.Calibration
	add := func(c report.Calibration) {
		if key := c.Name + "\x00" + c.Value; !seen[key] {
			seen[key] = true
			cal = append(cal, c)
		}
	}
	w := d.Scenario.Workload
	for _, c := range commits {
		k, err := d.Sampler.knobsOf(ctx, c)
		if err != nil {
			return nil, err
		}
		sim, err := ahi.Simulate(ctx, ahi.SimConfig{Knobs: k, Tables: w.Tables, TableSize: w.TableSize,
			Threads: w.Threads, Duration: d.Sampler.Duration, Seed: 1, SampleEvents: d.Sampler.SampleEvents})
		if err != nil {
			return nil, err
		}
		for _, s := range sim.Calibration {
			name, value, _ := strings.Cut(strings.SplitN(s, " ", 2)[0], "=")
			add(report.Calibration{Name: name, Value: value, Kind: "choice", Source: c.Short + ": " + s})
		}
		for _, n := range sim.Notes {
			if strings.HasPrefix(n, "sampled:") || strings.HasPrefix(n, "stale ref_count:") {
				continue // per run, not per model
			}
			kind := "choice"
			if strings.HasPrefix(n, "[fact]") {
				kind = "fact"
			}
			add(report.Calibration{Name: "model", Value: strings.TrimSpace(strings.TrimPrefix(n, "[model]")), Kind: kind})
		}
	}
	sort.SliceStable(cal, func(i, j int) bool { return cal[i].Name > cal[j].Name }) // tps_factor before notes
	return &report.ModelNotes{Description: d.Scenario.Description, Calibration: cal}, nil
}
