package ahi

import (
	"hash/crc32"
	"reflect"
	"testing"
)

// newTestModel builds a small model (tables x rows) with knob overrides.
func newTestModel(t *testing.T, tables int, rows int64, mod func(*Knobs)) *Model {
	t.Helper()
	k := DefaultKnobs()
	if mod != nil {
		mod(&k)
	}
	m, err := New(Config{Knobs: k, Tables: tables, TableSize: rows})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// drive runs n uniform lookups on the queried tables.
func drive(m *Model, w *Worker, n int, rows int64) {
	for i := 0; i < n; i++ {
		m.Lookup(w, int(intn(&w.rng, int64(m.queried)))+1, intn(&w.rng, rows)+1)
	}
}

func TestFoldIsCRC32C(t *testing.T) {
	for _, id := range []int64{1, 2, 73, 1000000} {
		key := []byte{byte(uint32(id)>>24) ^ 0x80, byte(id >> 16), byte(id >> 8), byte(id)}
		seed := uint32(42)
		if got, want := foldOf(42, id), crc32.Update(seed, castagnoli, key); got != want {
			t.Errorf("foldOf(42, %d) = %#x, want %#x", id, got, want)
		}
	}
}

func TestCollisionsMatchBruteForce(t *testing.T) {
	m := newTestModel(t, 4, 30000, func(k *Knobs) { k.Parts = 1 }) // 120k keys in one partition
	seen := map[uint32][]int64{}
	for _, tb := range m.tables {
		for id := int64(1); id <= tb.Rows; id++ {
			f := foldOf(tb.Index.ID, id)
			seen[f] = append(seen[f], packKey(tb.Num, id))
		}
	}
	colliding := 0
	for _, keys := range seen {
		if len(keys) > 1 {
			colliding += len(keys)
			for _, k := range keys {
				if m.coll.lookup(int(k>>32)-1, k&(1<<32-1)) < 0 {
					t.Fatalf("key %x collides but is not in a group", k)
				}
			}
		}
	}
	n := 0
	for _, ids := range m.coll.ids {
		n += len(ids)
	}
	if n != colliding {
		t.Fatalf("groups hold %d keys, brute force finds %d", n, colliding)
	}
}

// TestBuildDecision checks §5 step 3: a page is built exactly when its
// conditions hold (rewrite118: helps >= n_recs/16 and not hashed, or
// helps/2 > n_recs; legacy106: helps > n_recs/16 after the increment).
func TestBuildDecision(t *testing.T) {
	tests := []struct {
		variant   Variant
		potential uint32
		helps     uint32
		hashed    bool
		want      bool
	}{
		{VariantRewrite118, 100, 4, false, true},   // 73/16 = 4
		{VariantRewrite118, 100, 3, false, false},  // not enough helps
		{VariantRewrite118, 99, 4, false, true},    // step 2 raises potential 99 to 100 first
		{VariantRewrite118, 50, 40, false, false},  // potential far below
		{VariantRewrite118, 100, 0, false, false},  // first analysed visit: helps := 1
		{VariantRewrite118, 100, 4, true, false},   // already hashed with the same parameters
		{VariantRewrite118, 100, 147, true, false}, // 147/2 = 73 is not > 73
		{VariantRewrite118, 100, 148, true, true},  // 148/2 = 74 > 73: periodic rebuild
		{VariantLegacy106, 105, 4, false, true},    // helps 4+1 = 5 > 4
		{VariantLegacy106, 105, 3, false, false},   // 3+1 = 4, not > 4
		{VariantLegacy106, 105, 146, true, true},   // 147 > 146 = 2*73
		{VariantLegacy106, 105, 100, true, false},  // hashed, same parameters
	}
	for i, tc := range tests {
		m := newTestModel(t, 1, 73*10, func(k *Knobs) { k.Variant = tc.variant; k.StartupCycle = false })
		tb := m.tables[0]
		ix := tb.Index
		ix.recommendation.Store(recOneFieldLeft)
		ix.nHashPotential.Store(tc.potential)
		b := &tb.blocks[3]
		if tc.hashed {
			b.hashed.Store(1)
			b.params.Store(recOneFieldLeft)
			ix.refCount.Store(1)
		}
		b.helps.Store(tc.helps)
		w := m.NewWorker(1)
		var out Outcome
		m.infoUpdate(&w.C, tb, ix, 3, 3*73+1, false, &out)
		if built := out.BuildRecs > 0; built != tc.want {
			t.Errorf("case %d %+v: built = %v", i, tc, !tc.want)
		}
	}
}

// TestPotentialCap: n_hash_potential never exceeds 100 (rewrite) or 105
// (legacy106).
func TestPotentialCap(t *testing.T) {
	for _, tc := range []struct {
		v   Variant
		cap uint32
	}{{VariantRewrite118, 100}, {VariantRewrite118Cells, 100}, {VariantLegacy106, 105}} {
		m := newTestModel(t, 2, 20000, func(k *Knobs) { k.Variant = tc.v })
		w := m.NewWorker(7)
		top := uint32(0)
		for i := 0; i < 200; i++ {
			drive(m, w, 500, 20000)
			for _, tb := range m.tables {
				top = max(top, tb.Index.nHashPotential.Load())
			}
		}
		if top != tc.cap {
			t.Errorf("%s: max n_hash_potential = %d, want %d", tc.v, top, tc.cap)
		}
	}
}

// TestRefCountOracles covers §12.6: with the fix, ref_count equals the
// hashed blocks at quiescent points and is 0 after disable; without it a
// table_non_LRU table keeps its count (rewrite118), legacy106 resets all.
func TestRefCountOracles(t *testing.T) {
	tests := []struct {
		name       string
		variant    Variant
		fix        bool
		staleAfter bool // table 1 (non-LRU) keeps its count after disable
	}{
		{"fix present", VariantRewrite118, true, false},
		{"fix absent", VariantRewrite118, false, true},
		{"fix absent, R2", VariantRewrite118Cells, false, true},
		{"fix absent, legacy106", VariantLegacy106, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := newTestModel(t, 4, 10000, func(k *Knobs) {
				k.Variant, k.RefcountFix, k.NonLRUTables, k.StartupCycle = tc.variant, tc.fix, 1, false
			})
			w := m.NewWorker(3)
			drive(m, w, 40000, 10000)
			for _, s := range m.IndexStates() {
				if s.RefCount != s.HashedBlocks || s.HashedBlocks == 0 {
					t.Fatalf("before disable: %+v", s)
				}
			}
			before := m.IndexStates()
			m.Disable()
			for i, s := range m.IndexStates() {
				want := int64(0)
				if tc.staleAfter && s.NonLRU {
					want = before[i].RefCount
				}
				if s.RefCount != want || s.HashedBlocks != 0 {
					t.Errorf("after disable: sbtest%d ref_count=%d hashed=%d, want ref_count %d, hashed 0", s.Table, s.RefCount, s.HashedBlocks, want)
				}
			}
			if m.Violations() != 0 {
				t.Errorf("%d ref_count underflows", m.Violations())
			}
		})
	}
}

// TestWarmupFollowsFSquared: with uniform ids and a fraction f of pages
// hashed, hits ≈ f² (spec §12.5 scenario 2 [derived]). Refined: a freshly
// built page has n_hash_helps = 0, and the first analysed visit to it
// clears last_hash_succ (§5 step 3), so with a share q of hashed pages
// past that visit, P(last_hash_succ) = L = fq/(1-f+fq) and hits = fL,
// which is f² once q = 1.
func TestWarmupFollowsFSquared(t *testing.T) {
	m := newTestModel(t, 1, 200000, func(k *Knobs) { k.StartupCycle = false })
	w := m.NewWorker(11)
	checked := 0
	for step := 0; step < 60; step++ {
		f0, q0 := hashedShares(m)
		before := w.C
		drive(m, w, 2000, 200000)
		f1, q1 := hashedShares(m)
		if f0 < 0.2 || f1 > 0.9 {
			continue
		}
		f, q := (f0+f1)/2, (q0+q1)/2
		want := f * f * q / (1 - f + f*q)
		hits := float64(w.C.HashHits-before.HashHits) / 2000
		if d := hits - want; d > 0.05 || d < -0.05 {
			t.Errorf("step %d: f=%.3f q=%.3f hits=%.3f, want %.3f (f²=%.3f)", step, f, q, hits, want, f*f)
		}
		checked++
	}
	if checked < 3 {
		t.Fatalf("only %d windows during warm-up", checked)
	}
}

// TestStaleRefCountDisablesIndex: without the fix, after a warm-up and a
// disable/enable cycle the non-LRU table's index is never hashed again
// ([model] rule), the others are.
func TestStaleRefCountDisablesIndex(t *testing.T) {
	for _, fix := range []bool{true, false} {
		m := newTestModel(t, 4, 10000, func(k *Knobs) { k.RefcountFix = fix })
		startup(m, true)
		w := m.NewWorker(5)
		drive(m, w, 40000, 10000)
		for _, s := range m.IndexStates() {
			stuck := s.NonLRU && !fix
			if stuck && s.HashedBlocks != 0 {
				t.Errorf("fix=%v: stale sbtest%d has %d hashed blocks", fix, s.Table, s.HashedBlocks)
			}
			if !stuck && s.HashedBlocks != int64(m.Table(s.Table).Leaves()) {
				t.Errorf("fix=%v: sbtest%d has %d of %d blocks hashed", fix, s.Table, s.HashedBlocks, m.Table(s.Table).Leaves())
			}
		}
		if refused := w.C.BuildsRefused; (refused > 0) == fix {
			t.Errorf("fix=%v: builds refused %d", fix, refused)
		}
	}
}

// hashedShares returns the hashed share of table 1's pages and, of those,
// the share whose n_hash_helps is no longer 0.
func hashedShares(m *Model) (f, q float64) {
	var hashed, visited int
	tb := m.tables[0]
	for i := range tb.blocks {
		if tb.blocks[i].hashed.Load() != 0 {
			hashed++
			if tb.blocks[i].helps.Load() > 0 {
				visited++
			}
		}
	}
	if hashed == 0 {
		return 0, 1
	}
	return float64(hashed) / float64(len(tb.blocks)), float64(visited) / float64(hashed)
}

// TestStartCacheRestoresExactly: restoring a startup snapshot gives the
// same state as running startup.
func TestStartCacheRestoresExactly(t *testing.T) {
	mod := func(k *Knobs) { k.RefcountFix = false; k.DropTableRows = 5000 }
	a := newTestModel(t, 4, 10000, mod)
	startup(a, true)
	b := newTestModel(t, 4, 10000, mod)
	snapshot(a).restore(b)
	if !reflect.DeepEqual(snapshot(a), snapshot(b)) || !reflect.DeepEqual(a.IndexStates(), b.IndexStates()) {
		t.Fatal("restored model differs from the one startup produced")
	}
	if a.Counters() != b.Counters() {
		t.Fatalf("counters differ: %+v vs %+v", a.Counters(), b.Counters())
	}
}
