package ahi

import "fmt"

// Costs are the simulated CPU costs of the model's operations, used only in
// deterministic mode. All of them are [model] calibration: the spec gives
// no per-operation costs except the [derived] ~8–9 µs of AHI work per page
// of an eager DROP (spec §11.2). The defaults are chosen so that the seed's
// workload (8 tables × 1M rows, 128 threads) gives ≈ 381.1k TPS with every
// table hashed, and that losing the AHI on one table of eight (what a stale
// ref_count does in this model, see build.go) costs ≈ 0.6 % (≈ 378.8k): the
// two levels of the mdev-12.0 seed. tps_factor is not needed for that.
type Costs struct {
	Cores          int     // simulated server CPUs serving queries; default 32
	QueryNs        float64 // per query outside InnoDB's lookup (parser, network, row conversion); default 83,524
	HashGuessNs    float64 // fold + partition S latch + first chain node + page try-latch + validation; default 400
	ChainNodeNs    float64 // per further chain node walked (load/2 on average: nodes per partition / cells); default 20
	HashAbortNs    float64 // the guess giving up at once (last_hash_succ false); default 5
	DescentLevelNs float64 // one level of a B-tree descent with S-latch coupling (hot root/internal page lines at high concurrency); default 1,476
	AnalysisNs     float64 // one search_info_update (§5 steps 1–4 without build); default 50
	UpdateRefNs    float64 // btr_search_update_hash_ref: partition latch + one node; default 200
	BuildRecNs     float64 // per record of a page build (fold + insert); default 40
	DropFoldRecNs  float64 // per record: fold computed without the AHI latch when dropping a page; default 30 (§11.2 split is [model])
	DropEraseRecNs float64 // per record: erase under the partition X latch; default 86 (fold+erase = 8.5 µs per 73-record page, §11.2 [derived])
	DropBasePageNs float64 // non-AHI work of DROP TABLE per page, not blocking queries; default 1,700 (5.7.29 AHI off: 2.6 s / 1.5M pages [derived])
	ClearBlockNs   float64 // per buffer-pool block visited by clear_hash_index during disable; default 20
	EvictReadNs    float64 // a page miss: read from storage (wait, not CPU); default 100,000
}

// DefaultCosts returns the calibrated defaults documented on Costs.
func DefaultCosts() Costs {
	return Costs{
		Cores: 32, QueryNs: 83524, HashGuessNs: 400, ChainNodeNs: 20, HashAbortNs: 5,
		DescentLevelNs: 1476, AnalysisNs: 50, UpdateRefNs: 200, BuildRecNs: 40,
		DropFoldRecNs: 30, DropEraseRecNs: 86, DropBasePageNs: 1700,
		ClearBlockNs: 20, EvictReadNs: 100000,
	}
}

// Validate rejects non-positive core counts and negative costs.
func (c Costs) Validate() error {
	if c.Cores < 1 || c.Cores > 4096 {
		return fmt.Errorf("costs: cores %d outside 1..4096", c.Cores)
	}
	for _, v := range []float64{c.QueryNs, c.HashGuessNs, c.ChainNodeNs, c.HashAbortNs, c.DescentLevelNs,
		c.AnalysisNs, c.UpdateRefNs, c.BuildRecNs, c.DropFoldRecNs, c.DropEraseRecNs,
		c.DropBasePageNs, c.ClearBlockNs, c.EvictReadNs} {
		if v < 0 {
			return fmt.Errorf("costs: negative cost %g", v)
		}
	}
	return nil
}
