package ahi

import "fmt"

// labelInput is what the fact/model labels depend on.
type labelInput struct {
	knobs       Knobs
	costs       Costs
	threads     int
	cold        bool
	measured    bool
	noiseCV     float64
	noiseFactor float64
	sampled     bool
	events      int64
	represented int64
	samplingSE  float64
	indexes     []IndexState
	drop        *DropReport
}

// labels returns which figures tps_factor touched and the fact/model notes
// every report built from the model must carry.
func labels(in labelInput) (calibration, notes []string) {
	k := in.knobs
	if k.TPSFactor != 1 && !in.measured {
		calibration = append(calibration, fmt.Sprintf(
			"tps_factor=%g [calibration]: every service time divided by it, so TPS, QPS, per-second TPS and latencies are touched", k.TPSFactor))
	}
	if in.measured {
		notes = append(notes, "[model] measured mode: real goroutines and latches in this process, timed by the wall clock; Costs and tps_factor are not used")
	} else {
		notes = append(notes,
			"[model] in-process AHI model, not MariaDB: learning, build, drop and disable follow spec §4–§9 [fact]; per-operation costs are [model] calibration (Costs) set so 8x1M rows, 128 threads gives ~381.1k TPS with every table hashed",
			fmt.Sprintf("[model] %d simulated cores serving a closed loop of %d threads", in.costs.Cores, in.threads))
		if in.sampled {
			notes = append(notes, fmt.Sprintf(
				"sampled: executed %d of ~%d events (per-second quota, quiet stretches skipped in simulated time); sampling SE of TPS %.4f%%",
				in.events, in.represented, 100*in.samplingSE))
		} else if in.events > 0 {
			notes = append(notes, fmt.Sprintf("not sampled: every one of %d events executed", in.events))
		}
		if in.noiseCV > 0 {
			notes = append(notes, fmt.Sprintf("[model] run-to-run noise: one seeded factor %.5f (noise_cv %g) on every service time", in.noiseFactor, in.noiseCV))
		}
	}
	if !in.cold {
		notes = append(notes, "[model] warm start: pages hashed by the real build routine instead of ~5 analysed visits each (WarmUp)")
	}
	if k.StartupCycle && k.AHI {
		notes = append(notes, "[model] startup_cycle: AHI disabled and re-enabled once after warm-up (stands for a buffer-pool resize or SET GLOBAL in the harness; unverified, spec §9.1)")
	}
	if k.AHI && !k.RefcountFix && k.Variant != VariantLegacy106 && k.NonLRUTables > 0 {
		notes = append(notes, "[model] without 83a48d2bc84 a table_non_LRU table keeps a stale ref_count after disable [fact, §9.1]; the model then refuses to hash pages of that index (stale ref_count ≥ leaf pages) — our reading of the seed's \"partial AHI disablement\"")
	}
	for _, ix := range in.indexes {
		if ix.Stale() && !ix.Freed {
			notes = append(notes, fmt.Sprintf("stale ref_count: sbtest%d ref_count=%d, hashed blocks=%d", ix.Table, ix.RefCount, ix.HashedBlocks))
		}
	}
	if d := in.drop; d != nil {
		notes = append(notes, fmt.Sprintf("DROP TABLE (%s) at %s: %d of %d pages hashed, statement time %s; [model] dict mutex held over the AHI phase only, dict_mutex_per_query=%g",
			d.Mode, d.At, d.PagesHashed, d.PagesTotal, d.Duration, k.DictMutexPerQuery))
	}
	return calibration, notes
}
