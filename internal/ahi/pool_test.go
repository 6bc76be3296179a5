package ahi

import "testing"

// TestEvictionDropsHashedPages: under eviction pressure (pool_pages below
// the leaf pages) evicting a hashed page drops its entries (§7), ref_count
// stays equal to the hashed blocks, and a lazily dropped table's index is
// freed once its last hashed page is evicted (§8).
func TestEvictionDropsHashedPages(t *testing.T) {
	m := newTestModel(t, 2, 73*1000, func(k *Knobs) {
		k.PoolPages, k.StartupCycle, k.DropTableRows = 1500, false, 73*300
	})
	// The extra table (pages 2000..2299 in pool order) starts evicted;
	// make it resident and hashed, then drop it lazily.
	startup(m, true)
	w := m.NewWorker(1)
	drive(m, w, 20000, 73*1000)
	if w.C.PageMisses == 0 || w.C.PagesDroppedEv == 0 {
		t.Fatalf("no eviction activity: %+v", w.C)
	}
	for _, s := range m.IndexStates() {
		if s.Stale() {
			t.Errorf("sbtest%d: ref_count %d, hashed blocks %d", s.Table, s.RefCount, s.HashedBlocks)
		}
	}
	extra := m.Table(3)
	for i := range extra.blocks {
		m.pool.touch(m, &w.C, extra, int64(i))
		m.buildPage(&w.C, extra, extra.Index, int64(i), recOneFieldLeft)
	}
	res, err := m.DropTable(DropLazy)
	if err != nil {
		t.Fatal(err)
	}
	if res.PagesHashed == 0 || !res.Pending {
		t.Fatalf("lazy drop of a hashed table: %+v", res)
	}
	drive(m, w, 40000, 73*1000) // evicts the dropped table's pages
	s := m.IndexStates()[2]
	if !s.Freed || !s.LazyFreed || s.RefCount != 0 || s.HashedBlocks != 0 {
		t.Errorf("dropped index after eviction: %+v", s)
	}
	if m.Violations() != 0 {
		t.Errorf("%d ref_count underflows", m.Violations())
	}
}
