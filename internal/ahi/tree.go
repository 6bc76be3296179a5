package ahi

import (
	"sync"
	"sync/atomic"
)

// Page states of a leaf block (spec §7, §12.1).
const (
	stateInPool     = 0 // resident and usable
	stateRemoveHash = 1 // being evicted: lookups that reach it fail (§4 step 5)
	stateEvicted    = 2 // not resident
)

// A block is one leaf page of a table's clustered index, with the AHI
// fields of buf_block_t (spec §2.4). Its records are implicit: leaf i holds
// ids i*R+1 .. (i+1)*R. Writes to index/params happen under the partition
// latch X; n_hash_helps is racy by design (an atomic here, so the measured
// mode is race-free in Go terms).
//
// block->index is a flag here: a page can only be hashed for its own
// table's index (a dropped table keeps its Index object, marked freed),
// so "hashed" plus Table.Index is the pointer, without GC write barriers.
// The page latches live in Table.latches, allocated in measured mode only.
type block struct {
	hashed atomic.Uint32 // block->index != nullptr
	params atomic.Uint32 // ahi_left_bytes_fields the entries were built with
	helps  atomic.Uint32 // n_hash_helps
	state  atomic.Uint32 // stateInPool, stateRemoveHash, stateEvicted
	ref    atomic.Uint32 // CLOCK reference bit (eviction)
}

// An Index is one clustered index (n_uniq = 1) with its search_info (spec
// §2.3). The racy fields are relaxed atomics, as the real ones are
// unprotected plain fields.
type Index struct {
	ID     uint64 // index id, assigned PK then k per table, consecutive (§12.1)
	Part   int    // ID % parts: every page of this index uses this partition
	Table  int    // 1-based table number (sbtest<Table>)
	NonLRU bool   // table in dict_sys.table_non_LRU [model]
	Leaves int    // leaf pages

	hashAnalysis   atomic.Uint32 // searches since the recommendation was reset (§2.3)
	lastHashSucc   atomic.Bool   // gates whether the next search tries the hash
	nHashPotential atomic.Uint32 // consecutive potential successes, saturating
	recommendation atomic.Uint32 // left_bytes_fields
	refCount       atomic.Int64  // blocks with block.index == this index (under partition X)
	freed          atomic.Bool   // dropped (lazy drop keeps it until its last page goes)
	lazyFreed      atomic.Bool   // btr_search_lazy_free ran
}

// RefCount returns search_info.ref_count.
func (ix *Index) RefCount() int64 { return ix.refCount.Load() }

// A Table is one sbtest table: its clustered index as an implicit B+tree
// with real leaf blocks and real internal-page latches.
type Table struct {
	Num     int   // 1-based
	Rows    int64 // ids 1..Rows
	Index   *Index
	blocks  []block
	latches []sync.RWMutex // page latches, measured mode only
	// levels[0] is the root level; the last internal level's children are
	// leaves. span[l] is how many leaves one page of level l covers.
	levels [][]sync.RWMutex
	span   []int64
	r      int64 // records per leaf
	fanout int64
	height int // levels including the leaf level
}

// newTable builds the implicit tree of rows records.
func newTable(num int, rows int64, r, fanout int, ix *Index, concurrent bool) *Table {
	t := &Table{Num: num, Rows: rows, Index: ix, r: int64(r), fanout: int64(fanout)}
	leaves := (rows + t.r - 1) / t.r
	if leaves < 1 {
		leaves = 1
	}
	t.blocks = make([]block, leaves)
	if concurrent {
		t.latches = make([]sync.RWMutex, leaves)
	}
	ix.Leaves = int(leaves)
	// Internal levels bottom-up, then reversed so levels[0] is the root.
	var counts, spans []int64
	n, span := leaves, int64(1)
	for n > 1 {
		n = (n + t.fanout - 1) / t.fanout
		span *= t.fanout
		counts = append(counts, n)
		spans = append(spans, span)
	}
	for i := len(counts) - 1; i >= 0; i-- {
		t.levels = append(t.levels, make([]sync.RWMutex, counts[i]))
		t.span = append(t.span, spans[i])
	}
	t.height = len(t.levels) + 1
	return t
}

// indexOf returns block->index: the table's index if b is hashed, or nil.
func (t *Table) indexOf(b *block) *Index {
	if b.hashed.Load() != 0 {
		return t.Index
	}
	return nil
}

// Height returns the number of B-tree levels, leaves included.
func (t *Table) Height() int { return t.height }

// Leaves returns the number of leaf pages.
func (t *Table) Leaves() int { return len(t.blocks) }

// leafOf returns the leaf holding id (ids are dense, 1..Rows).
func (t *Table) leafOf(id int64) int64 { return (id - 1) / t.r }

// recsOf returns the number of user records on leaf i.
func (t *Table) recsOf(i int64) int {
	last := (i + 1) * t.r
	if last > t.Rows {
		last = t.Rows
	}
	return int(last - i*t.r)
}

// descend walks root to leaf with S-latch coupling (latches only when
// concurrent), doing the binary search of every level, and returns the leaf
// index with its page latch held when concurrent. levels is the number of
// pages visited.
func (t *Table) descend(id int64, concurrent bool) (leaf int64, levels int) {
	key := id - 1 // 0-based record number; a page's first key is implicit
	var page int64
	var held *sync.RWMutex
	for l := range t.levels {
		if concurrent {
			lt := &t.levels[l][page]
			lt.RLock()
			if held != nil {
				held.RUnlock()
			}
			held = lt
		}
		// Binary search among the children of page for the last child
		// whose first record is <= key.
		span := t.span[l] / t.fanout // leaves per child
		first := page * t.fanout
		lo, hi := first, first+t.fanout-1
		if nextLevel := t.levelCount(l + 1); hi >= nextLevel {
			hi = nextLevel - 1
		}
		for lo < hi {
			mid := (lo + hi + 1) / 2
			if mid*span*t.r <= key {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		page = lo
		levels++
	}
	leaf = page
	if concurrent {
		t.latches[leaf].RLock()
		if held != nil {
			held.RUnlock()
		}
	}
	// Binary search within the leaf (implicit sorted ids).
	lo, hi := leaf*t.r+1, leaf*t.r+int64(t.recsOf(leaf))
	for lo < hi {
		mid := (lo + hi) / 2
		if mid < id {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return leaf, levels + 1
}

// levelCount returns the number of pages at level l (len(levels) = leaves).
func (t *Table) levelCount(l int) int64 {
	if l >= len(t.levels) {
		return int64(len(t.blocks))
	}
	return int64(len(t.levels[l]))
}
