package ahi

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteReport prints the model's counters, index states, drop, calibration
// and fact/model notes (after a run through the Backend).
func WriteReport(w io.Writer, r Report) error {
	ew := &errWriter{w: w}
	writeCounters(ew, r.Counters)
	writeIndexes(ew, r.Indexes)
	if r.Violations > 0 {
		ew.printf("ref_count underflows:              %d (fatal in the server)\n", r.Violations)
	}
	writeDrop(ew, r.Drop)
	writeLabels(ew, r.Calibration, r.Notes)
	return ew.err
}

// WriteSimResult prints a Simulate result in the same shape.
func WriteSimResult(w io.Writer, r SimResult) error {
	ew := &errWriter{w: w}
	ew.printf("Model run (deterministic, direct):\n")
	ew.printf("    transactions:                    %.2f per sec.\n", r.TPS)
	ew.printf("    queries:                         %.2f per sec.\n", r.QPS)
	ew.printf("    latency avg / %gth / max (ms):   %.3f / %.3f / %.3f\n", r.Percentile, r.LatencyAvgMs, r.LatencyPctMs, r.LatencyMaxMs)
	ew.printf("    lowest interval TPS:             %.2f\n", r.LowestTPS)
	ew.printf("    longest gap between queries:     %s\n", r.LongestStall)
	ew.printf("    events executed / represented:   %d / %d (sampled: %v)\n\n", r.Events, r.Represented, r.Sampled)
	writeCounters(ew, r.Counters)
	writeIndexes(ew, r.Indexes)
	writeDrop(ew, r.Drop)
	writeLabels(ew, r.Calibration, r.Notes)
	return ew.err
}

func writeCounters(ew *errWriter, c Counters) {
	pct := func(n uint64) float64 {
		if c.Lookups == 0 {
			return 0
		}
		return 100 * float64(n) / float64(c.Lookups)
	}
	ew.printf("AHI model counters (spec §12.3):\n")
	ew.printf("    lookups:                         %d\n", c.Lookups)
	ew.printf("    hash hits (BTR_CUR_HASH):        %d (%.2f%%)\n", c.HashHits, pct(c.HashHits))
	ew.printf("    hash fails / aborts:             %d / %d\n", c.HashFails, c.HashAborts)
	ew.printf("    B-tree descents (non_sea):       %d (%d)\n", c.Descents, c.NonSea)
	ew.printf("    analysed searches:               %d\n", c.Analysed)
	ew.printf("    pages built / rebuilt / refused: %d / %d / %d\n", c.PagesBuilt, c.Rebuilds, c.BuildsRefused)
	ew.printf("    node repairs (update_hash_ref):  %d\n", c.RefRepairs)
	ew.printf("    pages dropped evict/DDL/freed:   %d / %d / %d\n", c.PagesDroppedEv, c.PagesDroppedDDL, c.PagesDroppedGC)
	ew.printf("    nodes added / removed:           %d / %d\n", c.NodesAdded, c.NodesRemoved)
	ew.printf("    partition latch S / X:           %d / %d\n", c.PartLatchS, c.PartLatchX)
	ew.printf("    latch waits S / X, wait time:    %d / %d, %.3f ms\n", c.PartWaitsS, c.PartWaitsX, float64(c.PartWaitNs)/1e6)
	ew.printf("    page try-latch failures:         %d\n", c.PageTryFails)
	ew.printf("    dict mutex waits, wait time:     %d, %.3f ms\n", c.DictWaits, float64(c.DictWaitNs)/1e6)
	ew.printf("    page misses:                     %d\n", c.PageMisses)
	ew.printf("    AHI disables / enables:          %d / %d\n\n", c.Disables, c.Enables)
}

func writeIndexes(ew *errWriter, ix []IndexState) {
	if len(ix) == 0 {
		return
	}
	ew.printf("Indexes:\n")
	tw := tabwriter.NewWriter(ew, 2, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "    table\tindex id\tpart\tnon-LRU\tref_count\thashed blocks\tn_hash_potential\tstate\n")
	for _, s := range ix {
		state := "live"
		switch {
		case s.LazyFreed:
			state = "dropped, freed"
		case s.Freed:
			state = "dropped, pending lazy free"
		case s.Stale():
			state = "STALE ref_count"
		}
		fmt.Fprintf(tw, "    sbtest%d\t%d\t%d\t%v\t%d\t%d\t%d\t%s\n", s.Table, s.IndexID, s.Part, s.NonLRU, s.RefCount, s.HashedBlocks, s.Potential, state)
	}
	tw.Flush()
	ew.printf("\n")
}

func writeDrop(ew *errWriter, d *DropReport) {
	if d == nil {
		return
	}
	ew.printf("DROP TABLE (%s) at %s: statement %s, AHI work %s, pages %d (hashed %d, dropped by DDL %d), pending lazy free: %v\n\n",
		d.Mode, d.At, d.Duration, d.AHIWork, d.PagesTotal, d.PagesHashed, d.PagesDropped, d.PendingLazily)
}

func writeLabels(ew *errWriter, calibration, notes []string) {
	if len(calibration) == 0 {
		ew.printf("Calibration: tps_factor = 1, no figure touched\n")
	} else {
		ew.printf("Calibration:\n")
		for _, c := range calibration {
			ew.printf("    - %s\n", c)
		}
	}
	ew.printf("Notes ([fact] read from MariaDB sources, [model] modelling choice):\n")
	for _, n := range notes {
		ew.printf("    - %s\n", n)
	}
}

// An errWriter keeps the first write error.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return len(p), nil
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, nil
}

func (e *errWriter) printf(format string, args ...any) { fmt.Fprintf(e, format, args...) }
