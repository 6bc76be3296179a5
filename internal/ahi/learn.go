package ahi

import "sync/atomic"

// infoUpdate is btr_search_info_update_hash plus its caller's
// post-processing and build (spec §5), run with the leaf page latched.
func (m *Model) infoUpdate(c *Counters, t *Table, ix *Index, leaf, id int64, hashFail bool, out *Outcome) {
	c.Analysed++
	out.Analysed = true
	// Step 2: recommendation. Every sbtest lookup is a unique full-key
	// match, so every analysed search is a potential success with the
	// recommendation (1 field, left side) [derived].
	pot := ix.nHashPotential.Load()
	if pot == 0 {
		ix.recommendation.Store(recOneFieldLeft)
		ix.hashAnalysis.Store(0)
	}
	potCap := uint32(buildLimit)
	if m.k.Variant == VariantLegacy106 {
		potCap = legacyPotentialCap
	}
	if pot < potCap {
		pot++
		ix.nHashPotential.Store(pot)
	}
	rec := ix.recommendation.Load()
	// Step 3: block help counting.
	b := &t.blocks[leaf]
	nRecs := uint32(t.recsOf(leaf))
	bi := t.indexOf(b)
	hashedSame := bi == ix && b.params.Load() == rec
	build := false
	helps := b.helps.Load()
	if m.k.Variant == VariantLegacy106 {
		// L3: helps restart at 1 unless counted for this recommendation
		// (ours never changes after the first reset).
		ix.lastHashSucc.Store(false)
		if helps > 0 && pot > 0 {
			if hashedSame {
				ix.lastHashSucc.Store(true)
			}
			helps++
		} else {
			helps = 1
		}
		b.helps.Store(helps)
		build = pot >= buildLimit && helps > nRecs/pageBuildLimit &&
			(bi == nil || helps > 2*nRecs || !hashedSame)
	} else if helps == 0 {
		ix.lastHashSucc.Store(false)
		b.helps.Store(1)
	} else {
		ix.lastHashSucc.Store(hashedSame)
		if pot >= buildLimit && (helps/2 > nRecs || (helps >= nRecs/pageBuildLimit && !hashedSame)) {
			build = true
		} else if helps < 0xFFFF {
			b.helps.Store(helps + 1)
		}
	}
	// Step 4: a page hashed for a freed index with the same id is dropped;
	// a HASH_FAIL repairs the node of this record.
	if bi != nil && bi.freed.Load() { // hashed for a freed index with this id
		out.DropRecs += int32(m.dropPage(c, t, leaf, &c.PagesDroppedGC))
	} else if hashFail && hashedSame {
		m.updateHashRef(c, t, ix, leaf, id, rec, out)
	}
	if build {
		out.BuildRecs += int32(m.buildPage(c, t, ix, leaf, rec))
	}
}

// updateHashRef is btr_search_update_hash_ref: (re)insert this record's
// node if the page is still hashed with the current parameters. R1 and
// legacy take the partition latch X; R2 takes S plus a cell latch.
func (m *Model) updateHashRef(c *Counters, t *Table, ix *Index, leaf, id int64, rec uint32, out *Outcome) {
	p := &m.parts[ix.Part]
	x := m.k.Variant != VariantRewrite118Cells
	if x {
		m.lockX(c, p)
	} else {
		m.lockS(c, p)
	}
	b := &t.blocks[leaf]
	if t.indexOf(b) == ix && b.params.Load() == rec && m.enabled.Load() {
		if g := m.coll.lookup(t.Num-1, id); g >= 0 {
			m.owner[g].Store(packKey(t.Num, id)) // the cell latch orders this in R2
		}
		c.RefRepairs++
		c.NodesAdded++
		out.UpdateRef = true
	}
	if x {
		m.unlockX(p)
	} else {
		m.unlockS(p)
	}
}

// buildPage is btr_search_build_page_hash_index (§5 step 5) for leaf,
// whose page latch the caller holds. It returns the records hashed.
func (m *Model) buildPage(c *Counters, t *Table, ix *Index, leaf int64, rec uint32) int {
	b := &t.blocks[leaf]
	p := &m.parts[ix.Part]
	m.lockS(c, p)
	enabled := m.enabled.Load()
	bi := t.indexOf(b)
	m.unlockS(p)
	if !enabled {
		return 0
	}
	if bi != nil && (bi != ix || b.params.Load() != rec) {
		m.dropPage(c, t, leaf, &c.PagesDroppedGC)
	}
	// Folds of all user records are computed here, outside the latch.
	nRecs := t.recsOf(leaf)
	m.foldPage(t, leaf)
	m.lockX(c, p)
	defer m.unlockX(p)
	if !m.enabled.Load() {
		return 0
	}
	switch cur := t.indexOf(b); {
	case cur != nil && (cur != ix || b.params.Load() != rec):
		return 0 // hashed meanwhile with other parameters: give up
	case cur == nil:
		// [model] A stale ref_count (disable without 83a48d2bc84 on a
		// table_non_LRU table, §9.1) makes the index look as if all its
		// pages were already hashed; the model refuses to hash more pages
		// than the index has. This is our reading of the seed's "partial
		// AHI disablement", not code read in the server.
		if ix.refCount.Load() >= int64(ix.Leaves) {
			c.BuildsRefused++
			return 0
		}
		b.hashed.Store(1)
		b.params.Store(rec)
		ix.refCount.Add(1)
		c.PagesBuilt++
		p.nodes.Add(int64(nRecs))
	default:
		c.Rebuilds++
	}
	b.helps.Store(0)
	m.setOwners(t, leaf, true)
	c.NodesAdded += uint64(nRecs)
	return nRecs
}

// setOwners points (insert) or unpoints (erase) the nodes of the colliding
// keys of leaf; the caller holds the partition latch X.
func (m *Model) setOwners(t *Table, leaf int64, insert bool) {
	lo := leaf*t.r + 1
	a, z := m.coll.inLeaf(t.Num-1, lo, lo+int64(t.recsOf(leaf))-1)
	for i := a; i < z; i++ {
		g := m.coll.group[t.Num-1][i]
		key := packKey(t.Num, m.coll.ids[t.Num-1][i])
		if insert {
			m.owner[g].Store(key) // insert overwrites the node with the same fold
		} else if m.owner[g].Load() == key {
			m.owner[g].Store(0)
		}
	}
}

// dropPage is btr_search_drop_page_hash_index (§7): erase every node that
// points into leaf, decrement ref_count, lazily free a freed index at its
// last page. It counts the drop in *kind and returns the records erased.
func (m *Model) dropPage(c *Counters, t *Table, leaf int64, kind *uint64) int {
	b := &t.blocks[leaf]
	bi := t.indexOf(b)
	if bi == nil {
		return 0
	}
	p := &m.parts[bi.Part] // from the index id in the page frame
	nRecs := t.recsOf(leaf)
	m.foldPage(t, leaf) // folds computed without the latch, then X for the erase
	m.lockX(c, p)
	defer m.unlockX(p)
	if t.indexOf(b) != bi {
		return 0 // someone else dropped it meanwhile
	}
	m.setOwners(t, leaf, false)
	p.nodes.Add(-int64(nRecs))
	c.NodesRemoved += uint64(nRecs)
	if n := bi.refCount.Add(-1); n < 0 {
		m.violations.Add(1)
		bi.refCount.Store(0)
	} else if n == 0 && bi.freed.Load() {
		bi.lazyFreed.Store(true) // btr_search_lazy_free
	}
	b.hashed.Store(0)
	*kind++
	return nRecs
}

var foldSinkA atomic.Uint32

// foldPage computes the folds of every record of leaf, as build and drop
// do before taking the latch X. Only the measured mode spends this real
// CPU; the deterministic mode charges Costs instead.
func (m *Model) foldPage(t *Table, leaf int64) {
	if !m.concurrent {
		return
	}
	var x uint32
	first := leaf*t.r + 1
	for id := first; id < first+int64(t.recsOf(leaf)); id++ {
		x ^= foldOf(t.Index.ID, id)
	}
	foldSinkA.Add(x)
}
