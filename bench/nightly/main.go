// Command nightly measures the nightly bot (perfbisect track) on seeded
// 90-night histories: steps of 1.5 to 4 night-to-night standard
// deviations (regressions and improvements) planted at a random commit,
// and A/A histories with none. Each history is replayed night by night
// through track.Tracker, the changepoint detector, the bisect engine and
// the ledger-first GitHub filer (against an in-process fake GitHub); the
// nights' tips and the bisect's runs come from a simulated target. It
// prints a Markdown table.
//
//	go run ./bench/nightly [-scale 1] [-seed 1] [-workers 2] [-runs 5]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/perfbisect/perfbisect/internal/track"
)

// Tuning flags, read by history.run.
var (
	confirm int
	pValue  float64
	window  int
	slack   int
	within  int
	verbose bool
)

// A group is a row of the table: count histories with one step per
// entry of dirs (true: an improvement), each of sds night-to-night SDs.
type group struct {
	name  string
	sds   float64
	dirs  []bool
	count int
}

var (
	down     = []bool{false}
	up       = []bool{true}
	downUpDn = []bool{false, true, false}
)

// plan is the default mix at scale 1: 200 one-step histories, 25 with
// three steps (two regressions, an improvement) and 100 A/A.
var plan = []group{
	{"regression 1.5 SD", 1.5, down, 25}, {"improvement 1.5 SD", 1.5, up, 25},
	{"regression 2 SD", 2, down, 25}, {"improvement 2 SD", 2, up, 25},
	{"regression 3 SD", 3, down, 25}, {"improvement 3 SD", 3, up, 25},
	{"regression 4 SD", 4, down, 25}, {"improvement 4 SD", 4, up, 25},
	{"three steps (2 down, 1 up) of 3 SD", 3, downUpDn, 25},
	{"A/A (no step)", 0, nil, 100},
}

func main() {
	scale := flag.Float64("scale", 1, "multiply every group's history count")
	seed := flag.Uint64("seed", 1, "base seed")
	workers := flag.Int("workers", runtime.GOMAXPROCS(0), "histories replayed at once")
	runs := flag.Int("runs", 5, "runs a night (track's config runs)")
	runCV := flag.Float64("run-cv", 0.003, "run-to-run coefficient of variation")
	nightCV := flag.Float64("night-cv", 0.002, "night-to-night coefficient of variation on top (machine, weather)")
	flag.IntVar(&confirm, "confirm", 0, "track config: confirm nights (0: the default)")
	flag.Float64Var(&pValue, "p", 0, "track config: detect.p_value (0: the default)")
	flag.IntVar(&slack, "slack", 0, "track config: slack nights (0: the default)")
	flag.IntVar(&window, "window", 0, "track config: detect.window (0: the default)")
	flag.IntVar(&within, "refine-within", -1, "track config: detect.refine_within (0: the least-squares split; -1: the default)")
	write := flag.String("write-scenario", "", "write the nightly demo scenario (track.NightlyDemo) to this file and stop")
	only := flag.String("only", "", "replay only the groups whose name contains this")
	flag.BoolVar(&verbose, "v", false, "print every false alarm and miss to stderr")
	flag.Parse()
	if *write != "" {
		if err := writeDemo(*write); err != nil {
			fmt.Fprintln(os.Stderr, "nightly:", err)
			os.Exit(1)
		}
		return
	}
	if *only != "" {
		plan = slices.DeleteFunc(plan, func(g group) bool { return !strings.Contains(g.name, *only) })
	}
	sd := nightSD(*runCV, *nightCV, *runs)
	start := time.Now()
	rows, err := measure(context.Background(), *scale, *seed, *workers, *runs, *runCV, *nightCV, sd)
	if err != nil {
		fmt.Fprintln(os.Stderr, "nightly:", err)
		os.Exit(1)
	}
	fmt.Printf("%d-night histories, %d commits a night, %d runs a night; run-to-run CV %.2f %%, night offset CV %.2f %%: "+
		"night-to-night SD %.3f %% (steps are multiples of it)\n\n", nights, perNight, *runs, 100**runCV, 100**nightCV, 100*sd)
	printTable(os.Stdout, rows)
	fmt.Fprintf(os.Stderr, "nightly: %s\n", time.Since(start).Round(time.Second))
}

type row struct {
	g   group
	out []outcome
}

func measure(ctx context.Context, scale float64, seed uint64, workers, runs int, runCV, nightCV, sd float64) ([]row, error) {
	rows := make([]row, len(plan))
	type job struct{ r, i int }
	jobs := make(chan job)
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
	)
	for r, g := range plan {
		rows[r] = row{g: g, out: make([]outcome, int(float64(g.count)*scale+0.5))}
	}
	for range max(workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				g := rows[j.r].g
				h := newHistory(seed*1_000_003+uint64(j.r)*10_000+uint64(j.i), g.sds, g.dirs)
				o, err := h.run(ctx, runCV, nightCV, sd, runs)
				mu.Lock()
				if err != nil {
					errs = append(errs, err)
				}
				rows[j.r].out[j.i] = o
				mu.Unlock()
			}
		}()
	}
	for r := range rows {
		for i := range rows[r].out {
			jobs <- job{r, i}
		}
	}
	close(jobs)
	wg.Wait()
	if len(errs) > 0 {
		return rows, errs[0]
	}
	return rows, nil
}

func pct(n, of int) string {
	if of == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f %%", 100*float64(n)/float64(of))
}

func printTable(w io.Writer, rows []row) {
	fmt.Fprintln(w, "| histories | n | steps | detected within 2 nights | median nights to bisect | culprit exact | false alarms / 1000 nights | issues | duplicate issues | rerun adds |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	var tot outcome
	histories := 0
	for _, r := range rows {
		var sum outcome
		for _, o := range r.out {
			sum.steps += o.steps
			sum.detected += o.detected
			sum.delays = append(sum.delays, o.delays...)
			sum.exact += o.exact
			sum.falseAlarm += o.falseAlarm
			sum.issues += o.issues
			sum.dupIssues += o.dupIssues
			sum.rerunNew += o.rerunNew
		}
		delay := "–"
		if len(sum.delays) > 0 {
			sort.Ints(sum.delays)
			delay = fmt.Sprint(sum.delays[len(sum.delays)/2])
		}
		fmt.Fprintf(w, "| %s | %d | %d | %s | %s | %s | %.2f | %d | %d | %d |\n", r.g.name, len(r.out), sum.steps,
			pct(sum.detected, sum.steps), delay, pct(sum.exact, sum.steps),
			1000*float64(sum.falseAlarm)/float64(len(r.out)*nights), sum.issues, sum.dupIssues, sum.rerunNew)
		histories += len(r.out)
		tot.steps += sum.steps
		tot.detected += sum.detected
		tot.exact += sum.exact
		tot.falseAlarm += sum.falseAlarm
		tot.issues += sum.issues
		tot.dupIssues += sum.dupIssues
		tot.rerunNew += sum.rerunNew
	}
	fa := 1000 * float64(tot.falseAlarm) / float64(histories*nights)
	fmt.Fprintf(w, "| **all** | %d | %d | %s | | %s | %.2f | %d | %d | %d |\n", histories, tot.steps, pct(tot.detected, tot.steps),
		pct(tot.exact, tot.steps), fa, tot.issues, tot.dupIssues, tot.rerunNew)
	fmt.Fprintf(w, "\nTargets: detected within 2 nights >= 95 %% (%s), false alarms <= 1 per 1000 nights (%.2f), "+
		"culprit exact >= 95 %% (%s), exactly one issue per culprit (%d duplicates; a rerun added %d).\n",
		pct(tot.detected, tot.steps), fa, pct(tot.exact, tot.steps), tot.dupIssues, tot.rerunNew)
}

// writeDemo writes track.NightlyDemo as JSON.
func writeDemo(path string) error {
	sc, err := track.NightlyDemo()
	if err != nil {
		return err
	}
	data, err := sc.JSON()
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}
