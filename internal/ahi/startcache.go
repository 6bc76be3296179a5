package ahi

import "sync"

// startKey identifies a model's starting state: the layout and the knobs
// that startup reads. Toggles, drop_at, drop_mode, dict_mutex_per_query
// and tps_factor act later and are not part of it.
type startKey struct {
	tables        int
	tableSize     int64
	ahi           bool
	parts, cells  int
	variant       Variant
	refcountFix   bool
	nonLRU        int
	startupCycle  bool
	dropTableRows int64
	leaf, fanout  int
	warm          bool
}

// A startState is a snapshot of a model right after startup.
type startState struct {
	blocks  [][5][]uint32 // per table: hashed, params, helps, state, ref
	indexes [][7]int64    // hashAnalysis, lastHashSucc, potential, recommendation, refCount, freed, lazyFreed
	nodes   []int64
	owners  []int64
	enabled bool
	ddl     Counters
}

var (
	startMu    sync.Mutex
	startCache = map[startKey]*startState{}
)

const startCacheMax = 16

// startupCached brings m (fresh from New) to its starting state, from a
// snapshot when one exists for the same key. Restoring a snapshot gives
// exactly the state startup would compute (it is deterministic), only
// faster. Models under eviction pressure are not cached.
func startupCached(m *Model, tables int, tableSize int64, warm bool) {
	k := m.k
	if m.pool != nil || m.concurrent {
		startup(m, warm)
		return
	}
	key := startKey{tables, tableSize, k.AHI, k.Parts, k.Cells, k.Variant, k.RefcountFix,
		k.NonLRUTables, k.StartupCycle, k.DropTableRows, k.LeafRecords, k.Fanout, warm}
	startMu.Lock()
	st := startCache[key]
	startMu.Unlock()
	if st != nil {
		st.restore(m)
		return
	}
	startup(m, warm)
	st = snapshot(m)
	startMu.Lock()
	if len(startCache) >= startCacheMax {
		clear(startCache)
	}
	startCache[key] = st
	startMu.Unlock()
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func snapshot(m *Model) *startState {
	st := &startState{enabled: m.enabled.Load(), ddl: m.ddl}
	for _, t := range m.tables {
		var f [5][]uint32
		for j := range f {
			f[j] = make([]uint32, len(t.blocks))
		}
		for i := range t.blocks {
			b := &t.blocks[i]
			f[0][i], f[1][i], f[2][i], f[3][i], f[4][i] = b.hashed.Load(), b.params.Load(), b.helps.Load(), b.state.Load(), b.ref.Load()
		}
		st.blocks = append(st.blocks, f)
		ix := t.Index
		st.indexes = append(st.indexes, [7]int64{int64(ix.hashAnalysis.Load()), b2i(ix.lastHashSucc.Load()),
			int64(ix.nHashPotential.Load()), int64(ix.recommendation.Load()), ix.refCount.Load(),
			b2i(ix.freed.Load()), b2i(ix.lazyFreed.Load())})
	}
	for i := range m.parts {
		st.nodes = append(st.nodes, m.parts[i].nodes.Load())
	}
	for i := range m.owner {
		st.owners = append(st.owners, m.owner[i].Load())
	}
	return st
}

func (st *startState) restore(m *Model) {
	m.enabled.Store(st.enabled)
	m.ddl = st.ddl
	for ti, t := range m.tables {
		f := st.blocks[ti]
		for i := range t.blocks {
			b := &t.blocks[i]
			b.hashed.Store(f[0][i])
			b.params.Store(f[1][i])
			b.helps.Store(f[2][i])
			b.state.Store(f[3][i])
			b.ref.Store(f[4][i])
		}
		v, ix := st.indexes[ti], t.Index
		ix.hashAnalysis.Store(uint32(v[0]))
		ix.lastHashSucc.Store(v[1] != 0)
		ix.nHashPotential.Store(uint32(v[2]))
		ix.recommendation.Store(uint32(v[3]))
		ix.refCount.Store(v[4])
		ix.freed.Store(v[5] != 0)
		ix.lazyFreed.Store(v[6] != 0)
	}
	for i := range m.parts {
		m.parts[i].nodes.Store(st.nodes[i])
	}
	for i := range m.owner {
		m.owner[i].Store(st.owners[i])
	}
}
