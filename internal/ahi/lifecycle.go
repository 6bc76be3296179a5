package ahi

import "fmt"

// lockAll takes every partition latch X (btr_sea::disable/enable step 1).
func (m *Model) lockAll(c *Counters) {
	for i := range m.parts {
		m.lockX(c, &m.parts[i])
	}
}

func (m *Model) unlockAll() {
	for i := range m.parts {
		m.unlockX(&m.parts[i])
	}
}

// Disable is btr_sea::disable (spec §9): with every partition latch X,
// reset ref_count of the dictionary-cached tables' indexes, walk the whole
// buffer pool unhooking hashed blocks (clear_hash_index) and empty the
// partitions. It returns the blocks visited (the O(pool pages) cost).
//
// [fact] The 11.8 rewrite's helper resets ref_count only for tables in
// dict_sys.table_LRU; legacy106 walks both lists. [fact] With refcount_fix
// (83a48d2bc84) clear_hash_index also zeroes the ref_count of every live
// index that still had a hashed block. Without it a table_non_LRU table
// keeps a stale ref_count.
func (m *Model) Disable() int {
	m.ddlMu.Lock()
	defer m.ddlMu.Unlock()
	c := &m.ddl
	m.lockAll(c)
	defer m.unlockAll()
	if !m.enabled.Load() {
		return 0
	}
	m.enabled.Store(false)
	c.Disables++
	for _, t := range m.tables {
		ix := t.Index
		if ix.freed.Load() {
			continue // detached from the dictionary cache
		}
		if !ix.NonLRU || m.k.Variant == VariantLegacy106 {
			ix.refCount.Store(0)
		}
	}
	visited := 0
	var garbage []*Index
	for _, t := range m.tables {
		for i := range t.blocks {
			visited++
			b := &t.blocks[i]
			bi := t.indexOf(b)
			if bi == nil {
				continue
			}
			if bi.freed.Load() {
				garbage = append(garbage, bi)
			} else if m.k.RefcountFix {
				bi.refCount.Store(0)
			}
			b.hashed.Store(0)
		}
	}
	for _, ix := range garbage {
		ix.refCount.Store(0)
		ix.lazyFreed.Store(true)
	}
	for i := range m.parts {
		c.NodesRemoved += uint64(m.parts[i].nodes.Swap(0))
	}
	for i := range m.owner {
		m.owner[i].Store(0)
	}
	return visited
}

// Enable is btr_sea::enable: set enabled under every partition latch X.
// Hash analysis restarts from the indexes' current (racy) search_info.
func (m *Model) Enable() {
	m.ddlMu.Lock()
	defer m.ddlMu.Unlock()
	m.lockAll(&m.ddl)
	defer m.unlockAll()
	if !m.enabled.Load() {
		m.enabled.Store(true)
		m.ddl.Enables++
	}
}

// A DropResult describes one DROP TABLE of the extra table.
type DropResult struct {
	Mode         DropMode
	PagesTotal   int // leaf pages of the dropped table
	PagesHashed  int // of those, hashed when the DROP began
	PagesDropped int // AHI entries dropped by the DDL itself (eager)
	Pending      bool
}

// DropTable drops the extra table (knob drop_table_rows). Eager (MySQL 5.7,
// §11.2): under the dictionary mutex, every hashed page's entries are
// erased with the partition latch X, one page at a time. Lazy (MDEV-22456,
// §8): the index is marked freed and returns at once; its hashed pages are
// dropped when evicted or touched, and the index is freed at its last page.
// In concurrent mode eager takes the real latches, one page at a time.
func (m *Model) DropTable(mode DropMode) (DropResult, error) {
	if len(m.tables) == m.queried {
		return DropResult{}, fmt.Errorf("drop table: no extra table (knob %s is 0)", KnobDropTableRows)
	}
	t := m.tables[len(m.tables)-1]
	ix := t.Index
	if ix.freed.Load() {
		return DropResult{}, fmt.Errorf("drop table sbtest%d: already dropped", t.Num)
	}
	res := DropResult{Mode: mode, PagesTotal: len(t.blocks)}
	for i := range t.blocks {
		if t.indexOf(&t.blocks[i]) != nil {
			res.PagesHashed++
		}
	}
	if mode == DropLazy {
		ix.freed.Store(true)
		if ix.refCount.Load() == 0 {
			ix.lazyFreed.Store(true)
		}
		res.Pending = !ix.lazyFreed.Load()
		return res, nil
	}
	m.dict.Lock()
	defer m.dict.Unlock()
	var c Counters
	for i := range t.blocks {
		if t.indexOf(&t.blocks[i]) != nil {
			m.dropPage(&c, t, int64(i), &c.PagesDroppedDDL)
		}
	}
	ix.freed.Store(true)
	ix.lazyFreed.Store(true)
	res.PagesDropped = int(c.PagesDroppedDDL)
	m.ddlMu.Lock()
	m.ddl.add(&c)
	m.ddlMu.Unlock()
	return res, nil
}

// WarmUp fast-forwards the learning of §5 instead of executing the
// ~5 analysed visits per page a cold run needs: for every queried (and the
// extra) table it raises n_hash_potential to the build limit and calls the
// real page build for every resident leaf, so the [model] stale-ref_count
// rule and the enabled flag apply as in a real warm-up. It returns the
// pages built.
func (m *Model) WarmUp() int {
	if !m.enabled.Load() {
		return 0
	}
	c := &m.ddl
	m.ddlMu.Lock()
	defer m.ddlMu.Unlock()
	built := 0
	for _, t := range m.tables {
		ix := t.Index
		if ix.freed.Load() {
			continue
		}
		ix.recommendation.Store(recOneFieldLeft)
		ix.hashAnalysis.Store(hashAnalysisLimit)
		ix.nHashPotential.Store(buildLimit)
		ix.lastHashSucc.Store(true)
		for i := range t.blocks {
			b := &t.blocks[i]
			if b.state.Load() != stateInPool || t.indexOf(b) == ix {
				continue
			}
			if m.buildPage(c, t, ix, int64(i), recOneFieldLeft) > 0 {
				built++
			}
		}
		// last_hash_succ as the last analysed search would have left it:
		// true only if pages of this index got hashed.
		hashed := false
		for i := range t.blocks {
			if t.indexOf(&t.blocks[i]) == ix {
				hashed = true
				break
			}
		}
		ix.lastHashSucc.Store(hashed)
	}
	return built
}
