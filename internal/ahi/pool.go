package ahi

import "sync"

// A pool is the buffer pool's leaf-page residency under eviction pressure
// (knob pool_pages): CLOCK over every leaf of every table; internal pages
// stay resident [model]. Evicting a hashed page drops its AHI entries
// first (§7, buf_LRU_block_remove_hashed), which is also how a lazily
// dropped table's entries go away (§8).
type pool struct {
	mu       sync.Mutex
	capacity int
	resident int
	hand     int
	tables   []*Table
	offsets  []int // first global page number of each table
	total    int
}

// newPool makes the first capacity pages (in table order) resident.
func newPool(tables []*Table, capacity int) *pool {
	p := &pool{capacity: capacity, tables: tables}
	for _, t := range tables {
		p.offsets = append(p.offsets, p.total)
		p.total += len(t.blocks)
	}
	n := 0
	for _, t := range tables {
		for i := range t.blocks {
			if n >= capacity {
				t.blocks[i].state.Store(stateEvicted)
			} else {
				n++
			}
		}
	}
	p.resident = n
	return p
}

// page returns the block of global page number g.
func (p *pool) page(g int) (*Table, int64) {
	ti := len(p.offsets) - 1
	for ti > 0 && p.offsets[ti] > g {
		ti--
	}
	return p.tables[ti], int64(g - p.offsets[ti])
}

// touch makes leaf resident, evicting with CLOCK if needed. It reports a
// miss and the AHI records dropped by evictions.
func (p *pool) touch(m *Model, c *Counters, t *Table, leaf int64) (bool, int32) {
	b := &t.blocks[leaf]
	if b.state.Load() == stateInPool {
		if b.ref.Load() == 0 {
			b.ref.Store(1)
		}
		return false, 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if b.state.Load() == stateInPool {
		return false, 0
	}
	var dropped int32
	for p.resident >= p.capacity {
		vt, vi := p.page(p.hand)
		p.hand = (p.hand + 1) % p.total
		v := &vt.blocks[vi]
		if v.state.Load() != stateInPool {
			continue
		}
		if v.ref.Load() != 0 {
			v.ref.Store(0)
			continue
		}
		if m.concurrent && !vt.latches[vi].TryLock() {
			continue // in use: skip, as the LRU skips latched blocks
		}
		v.state.Store(stateRemoveHash)
		dropped += int32(m.dropPage(c, vt, vi, &c.PagesDroppedEv))
		v.state.Store(stateEvicted)
		if m.concurrent {
			vt.latches[vi].Unlock()
		}
		p.resident--
	}
	b.state.Store(stateInPool)
	b.ref.Store(1)
	p.resident++
	c.PageMisses++
	return true, dropped
}
