package ahi

import "fmt"

// labels returns which figures tps_factor touched and the fact/model notes
// every report built from the model must carry.
func labels(cfg SimConfig, res *SimResult) (calibration, notes []string) {
	k := cfg.Knobs
	if k.TPSFactor != 1 {
		calibration = append(calibration, fmt.Sprintf(
			"tps_factor=%g [calibration]: every service time divided by it, so TPS, QPS, per-second TPS and latencies are touched", k.TPSFactor))
	}
	notes = append(notes,
		"[model] in-process AHI model, not MariaDB: learning, build, drop and disable follow spec §4–§9 [fact]; per-operation costs are [model] calibration (Costs) set so 8x1M rows, 128 threads gives ~381.1k TPS with every table hashed",
		fmt.Sprintf("[model] %d simulated cores, closed loop of %d threads, uniform table and id", costsOr(cfg).Cores, cfg.Threads))
	if res.Sampled {
		notes = append(notes, fmt.Sprintf(
			"sampled: executed %d of ~%d events (per-second quota, quiet stretches skipped in simulated time); sampling SE of TPS %.4f%%",
			res.Events, res.Represented, 100*res.SamplingSE))
	} else {
		notes = append(notes, fmt.Sprintf("not sampled: every one of %d events executed", res.Events))
	}
	if cfg.NoiseCV > 0 {
		notes = append(notes, fmt.Sprintf("[model] run-to-run noise: one seeded factor %.5f (noise_cv %g) on every service time", res.NoiseFactor, cfg.NoiseCV))
	}
	if !cfg.Cold {
		notes = append(notes, "[model] warm start: pages hashed by the real build routine instead of ~5 analysed visits each (WarmUp)")
	}
	if k.StartupCycle && k.AHI {
		notes = append(notes, "[model] startup_cycle: AHI disabled and re-enabled once after warm-up (stands for a buffer-pool resize or SET GLOBAL in the harness; unverified, spec §9.1)")
	}
	if k.AHI && !k.RefcountFix && k.Variant != VariantLegacy106 && k.NonLRUTables > 0 {
		notes = append(notes, "[model] without 83a48d2bc84 a table_non_LRU table keeps a stale ref_count after disable [fact, §9.1]; the model then refuses to hash pages of that index (stale ref_count ≥ leaf pages) — our reading of the seed's \"partial AHI disablement\"")
	}
	for _, ix := range res.Indexes {
		if ix.Stale() && !ix.Freed {
			notes = append(notes, fmt.Sprintf("stale ref_count: sbtest%d ref_count=%d, hashed blocks=%d", ix.Table, ix.RefCount, ix.HashedBlocks))
		}
	}
	if res.Drop != nil {
		notes = append(notes, fmt.Sprintf("DROP TABLE (%s) at %s: %d of %d pages hashed, statement time %s; [model] dict mutex held over the AHI phase only, dict_mutex_per_query=%g",
			res.Drop.Mode, res.Drop.At, res.Drop.PagesHashed, res.Drop.PagesTotal, res.Drop.Duration, k.DictMutexPerQuery))
	}
	return calibration, notes
}

func costsOr(cfg SimConfig) Costs {
	if cfg.Costs != nil {
		return *cfg.Costs
	}
	return DefaultCosts()
}
