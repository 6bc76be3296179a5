package ahi

import "time"

// Outcome kinds of one lookup.
const (
	OutHit   = iota // BTR_CUR_HASH: served by the AHI
	OutFail         // BTR_CUR_HASH_FAIL, then a B-tree descent
	OutAbort        // BTR_CUR_HASH_ABORT (not tried), then a B-tree descent
	OutOff          // AHI disabled: B-tree descent only
)

// An Outcome says what one lookup really executed; deterministic mode turns
// it into simulated time (Costs), measured mode ignores it.
type Outcome struct {
	Kind      uint8
	Levels    uint8   // B-tree pages visited (0 on a hit)
	Analysed  bool    // search_info_update ran
	UpdateRef bool    // a node was (re)inserted by btr_search_update_hash_ref
	Part      int16   // partition latched in S by the guess, -1 if none
	BuildRecs int32   // records hashed by a page build
	DropRecs  int32   // records whose nodes were dropped (freed index, eviction)
	Miss      bool    // the leaf was read into the buffer pool
	Chain     float32 // expected further chain nodes walked by the guess: load/2 [model]
}

func nanotime() int64 { return time.Now().UnixNano() }

// Lookup runs one point select on table (1-based) for id through the AHI
// and, when needed, the B-tree (spec §4), then the learning of §5.
func (m *Model) Lookup(w *Worker, table int, id int64) Outcome {
	t := m.tables[table-1]
	ix := t.Index
	c := &w.C
	c.Lookups++
	out := Outcome{Part: -1}
	leaf := t.leafOf(id)
	if m.pool != nil {
		out.Miss, out.DropRecs = m.pool.touch(m, c, t, leaf)
	}
	enabled := m.enabled.Load() // dirty read, as the server does
	hashFail := false
	if enabled {
		if m.guess(c, t, ix, leaf, id, &out) {
			return out
		}
		hashFail = out.Kind == OutFail
		c.NonSea++
	} else {
		out.Kind = OutOff
	}
	c.Descents++
	leaf, levels := t.descend(id, m.concurrent)
	out.Levels = uint8(levels)
	if enabled && m.hashAnalysisUseful(ix) {
		m.infoUpdate(c, t, ix, leaf, id, hashFail, &out)
	}
	if m.concurrent {
		t.latches[leaf].RUnlock()
	}
	return out
}

// guess is btr_search_guess_on_hash (§4 steps 2–7); it reports a hit.
func (m *Model) guess(c *Counters, t *Table, ix *Index, leaf, id int64, out *Outcome) bool {
	if !ix.lastHashSucc.Load() || ix.nHashPotential.Load() == 0 {
		c.HashAborts++
		out.Kind = OutAbort
		return false
	}
	out.Kind = OutFail
	fold := foldOf(ix.ID, id)
	_ = fold // the node is implicit; the fold is computed because the server does
	p := &m.parts[ix.Part]
	out.Part = int16(ix.Part)
	// [model] Nodes are implicit, so the chain walk is charged as its
	// expected length: half the partition's load (nodes / cells).
	out.Chain = float32(p.nodes.Load()) / float32(2*m.cells)
	m.lockS(c, p)
	b := &t.blocks[leaf]
	bi := t.indexOf(b)
	if !m.enabled.Load() || bi == nil || !m.nodeFor(t, id) {
		m.unlockS(p)
		c.HashFails++
		return false
	}
	if m.concurrent && !t.latches[leaf].TryRLock() { // never wait for the page
		m.unlockS(p)
		c.PageTryFails++
		c.HashFails++
		return false
	}
	ok := b.state.Load() == stateInPool && !bi.freed.Load() && // a freed index with the same id fails
		m.ownsNode(t, id) // validation: the node's record is the searched one
	m.unlockS(p)
	if m.concurrent {
		t.latches[leaf].RUnlock()
	}
	if !ok {
		c.HashFails++
		return false
	}
	potCap := uint32(buildLimit)
	if m.k.Variant == VariantLegacy106 {
		potCap = legacyPotentialCap
	}
	if v := ix.nHashPotential.Load(); v < potCap {
		ix.nHashPotential.Store(v + 1)
	}
	ix.lastHashSucc.Store(true)
	c.HashHits++
	out.Kind = OutHit
	return true
}

// nodeFor reports whether the partition has a node with id's fold: for a
// colliding key, whether its group's node exists at all.
func (m *Model) nodeFor(t *Table, id int64) bool {
	g := m.coll.lookup(t.Num-1, id)
	return g < 0 || m.owner[g].Load() != 0
}

// ownsNode reports whether the node for id's fold points at id's record.
func (m *Model) ownsNode(t *Table, id int64) bool {
	g := m.coll.lookup(t.Num-1, id)
	return g < 0 || m.owner[g].Load() == packKey(t.Num, id)
}

func packKey(table int, id int64) int64 { return int64(table)<<32 | id }

// hashAnalysisUseful counts a B-tree search and reports whether analysis
// runs: from the 17th search after a reset on (§2.3, L2; 11.8 body
// [inference] the same).
func (m *Model) hashAnalysisUseful(ix *Index) bool {
	v := ix.hashAnalysis.Load() + 1
	if v < hashAnalysisLimit {
		ix.hashAnalysis.Store(v)
		return false
	}
	ix.hashAnalysis.Store(hashAnalysisLimit)
	return true
}
