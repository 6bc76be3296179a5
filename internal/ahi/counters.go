package ahi

// Counters are the model's event counts (spec §12.3). Each worker (Conn)
// keeps its own; Model.Counters sums them, so read them when quiescent.
type Counters struct {
	Lookups         uint64 // point lookups
	HashHits        uint64 // BTR_CUR_HASH (btr_cur_n_sea)
	HashFails       uint64 // BTR_CUR_HASH_FAIL: tried, no usable node
	HashAborts      uint64 // BTR_CUR_HASH_ABORT: not tried (last_hash_succ false, no potential)
	NonSea          uint64 // btr_cur_n_non_sea: B-tree fallbacks while AHI enabled
	Descents        uint64 // B-tree descents (with AHI on or off)
	Analysed        uint64 // searches that ran search_info_update (§5)
	PagesBuilt      uint64 // page hash builds, first time
	Rebuilds        uint64 // page hash builds over an already hashed page
	BuildsRefused   uint64 // [model] builds refused because ref_count >= leaf pages (stale ref_count)
	RefRepairs      uint64 // btr_search_update_hash_ref calls that (re)inserted a node
	PagesDroppedEv  uint64 // pages whose entries were dropped on eviction
	PagesDroppedDDL uint64 // pages whose entries were dropped by an eager DROP TABLE
	PagesDroppedGC  uint64 // pages of freed indexes dropped when touched or cleared
	NodesAdded      uint64
	NodesRemoved    uint64
	PartLatchS      uint64 // partition latch S acquisitions
	PartLatchX      uint64 // partition latch X acquisitions
	PartWaitsS      uint64 // S acquisitions that had to wait (TryRLock failed / X scheduled)
	PartWaitsX      uint64
	PartWaitNs      uint64 // time spent waiting for partition latches (measured: wall ns; deterministic: simulated ns)
	PageTryFails    uint64 // page try-latch failures in the guess (§4 step 4)
	DictWaits       uint64 // queries that waited for the dictionary mutex
	DictWaitNs      uint64
	PageMisses      uint64 // leaf pages read into the pool (eviction pressure)
	Disables        uint64 // btr_sea::disable runs
	Enables         uint64
}

// add accumulates o into c.
func (c *Counters) add(o *Counters) {
	c.Lookups += o.Lookups
	c.HashHits += o.HashHits
	c.HashFails += o.HashFails
	c.HashAborts += o.HashAborts
	c.NonSea += o.NonSea
	c.Descents += o.Descents
	c.Analysed += o.Analysed
	c.PagesBuilt += o.PagesBuilt
	c.Rebuilds += o.Rebuilds
	c.BuildsRefused += o.BuildsRefused
	c.RefRepairs += o.RefRepairs
	c.PagesDroppedEv += o.PagesDroppedEv
	c.PagesDroppedDDL += o.PagesDroppedDDL
	c.PagesDroppedGC += o.PagesDroppedGC
	c.NodesAdded += o.NodesAdded
	c.NodesRemoved += o.NodesRemoved
	c.PartLatchS += o.PartLatchS
	c.PartLatchX += o.PartLatchX
	c.PartWaitsS += o.PartWaitsS
	c.PartWaitsX += o.PartWaitsX
	c.PartWaitNs += o.PartWaitNs
	c.PageTryFails += o.PageTryFails
	c.DictWaits += o.DictWaits
	c.DictWaitNs += o.DictWaitNs
	c.PageMisses += o.PageMisses
	c.Disables += o.Disables
	c.Enables += o.Enables
}

// HitRate returns hash hits per lookup.
func (c Counters) HitRate() float64 {
	if c.Lookups == 0 {
		return 0
	}
	return float64(c.HashHits) / float64(c.Lookups)
}

// IndexState is the per-index AHI state the oracles of spec §12.6 check.
type IndexState struct {
	Table        int
	IndexID      uint64
	Part         int
	NonLRU       bool
	RefCount     int64 // search_info.ref_count
	HashedBlocks int64 // blocks with block.index == this index, counted now
	Potential    uint32
	Freed        bool
	LazyFreed    bool
}

// Stale reports whether ref_count disagrees with the hashed blocks.
func (s IndexState) Stale() bool { return s.RefCount != s.HashedBlocks }
