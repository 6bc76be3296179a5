package ahi

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/perfbisect/perfbisect/internal/pointselect"
)

// A DropVariant is one row of the DROP TABLE comparison.
type DropVariant struct {
	Mode DropMode
	AHI  bool
}

func (v DropVariant) String() string { return fmt.Sprintf("%s/%s", v.Mode, onOff(v.AHI)) }

// ParseDropVariants reads "eager:on,eager:off,lazy:on".
func ParseDropVariants(s string) ([]DropVariant, error) {
	var out []DropVariant
	for _, item := range strings.Split(s, ",") {
		mode, ahi, ok := strings.Cut(strings.TrimSpace(item), ":")
		on, err := parseBool(ahi)
		if !ok || err != nil || (mode != string(DropEager) && mode != string(DropLazy)) {
			return nil, fmt.Errorf("drop variant %q: want eager|lazy:on|off", item)
		}
		out = append(out, DropVariant{Mode: DropMode(mode), AHI: on})
	}
	return out, nil
}

// DropScenario is the DROP TABLE scenario (issue item 4): point selects on
// Tables tables while an extra, large, hashed table is dropped.
type DropScenario struct {
	Knobs         Knobs // base knobs; ahi, drop_mode, drop_at, drop_table_rows are set per variant
	Tables        int   // queried tables; default 7
	TableSize     int64 // default 1,000,000
	Threads       int   // default 128
	Duration      time.Duration
	DropAt        time.Duration
	DropTableRows int64         // default 30,000,000 (~411k pages)
	Variants      []DropVariant // default eager/on, eager/off, lazy/on (the seed table's rows)
	Seed          uint64
}

// A DropOutcome is one variant's result.
type DropOutcome struct {
	Variant   DropVariant
	Result    SimResult
	MedianTPS float64
}

// RunDropScenario simulates every variant deterministically.
func RunDropScenario(ctx context.Context, sc DropScenario) ([]DropOutcome, error) {
	if sc.Tables == 0 {
		sc.Tables = 7
	}
	if sc.DropTableRows == 0 {
		sc.DropTableRows = 30000000
	}
	if sc.Duration == 0 {
		sc.Duration = 30 * time.Second
	}
	if sc.DropAt == 0 {
		sc.DropAt = 10 * time.Second
	}
	if len(sc.Variants) == 0 {
		sc.Variants = []DropVariant{{DropEager, true}, {DropEager, false}, {DropLazy, true}}
	}
	if sc.DropAt >= sc.Duration {
		return nil, fmt.Errorf("drop scenario: drop at %s is not inside the %s run", sc.DropAt, sc.Duration)
	}
	var out []DropOutcome
	for _, v := range sc.Variants {
		k := sc.Knobs
		k.AHI, k.DropMode, k.DropAt, k.DropTableRows = v.AHI, v.Mode, sc.DropAt, sc.DropTableRows
		res, err := Simulate(ctx, SimConfig{Knobs: k, Tables: sc.Tables, TableSize: sc.TableSize,
			Threads: sc.Threads, Duration: sc.Duration, Seed: sc.Seed})
		if err != nil {
			return nil, fmt.Errorf("drop scenario %s: %w", v, err)
		}
		out = append(out, DropOutcome{Variant: v, Result: res, MedianTPS: median(res.Intervals)})
	}
	return out, nil
}

// WriteDropTable prints the comparison (the shape of the seed's MySQL
// table) and the per-second TPS of every variant.
func WriteDropTable(w io.Writer, outs []DropOutcome) error {
	ew := &errWriter{w: w}
	if len(outs) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(ew, 2, 8, 2, ' ', tabwriter.AlignRight)
	// The drop-table-stall metrics under the names the real workload
	// stores (pointselect.ComputeStall), here on 1 s buckets.
	fmt.Fprintf(tw, "drop\tAHI\t%s (s)\tAHI work\tmedian TPS\t%s (s)\t%s\tlongest gap between queries\t\n",
		pointselect.MetricDropDuration, pointselect.MetricLongestStall, pointselect.MetricDropDip)
	for _, o := range outs {
		d := o.Result.Drop
		st := pointselect.ComputeStall(pointselect.EvenBuckets(o.Result.Intervals, time.Second), time.Second, d.At, d.Duration)
		fmt.Fprintf(tw, "%s\t%s\t%.3f\t%s\t%.0f\t%.1f\t%.0f %%\t%s\t\n", o.Variant.Mode, onOff(o.Variant.AHI),
			d.Duration.Seconds(), d.AHIWork.Round(time.Millisecond), o.MedianTPS,
			st.LongestStall.Seconds(), 100*st.DropDip, o.Result.LongestStall.Round(time.Microsecond))
	}
	tw.Flush()
	ew.printf("\nper-second TPS:\n")
	fmt.Fprintf(tw, "t (s)\t")
	for _, o := range outs {
		fmt.Fprintf(tw, "%s\t", o.Variant)
	}
	fmt.Fprintf(tw, "\n")
	for i := range outs[0].Result.Intervals {
		fmt.Fprintf(tw, "%d\t", i+1)
		for _, o := range outs {
			fmt.Fprintf(tw, "%.0f\t", o.Result.Intervals[i])
		}
		fmt.Fprintf(tw, "\n")
	}
	tw.Flush()
	ew.printf("\nNotes:\n")
	seen := map[string]bool{}
	for _, o := range outs {
		for _, n := range append(o.Result.Calibration, o.Result.Notes...) {
			if !seen[n] {
				seen[n] = true
				ew.printf("    - %s\n", n)
			}
		}
	}
	return ew.err
}

// median returns the middle value (upper median) of xs.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}
