package ahi

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/perfbisect/perfbisect/internal/pointselect"
)

// Limits of a model layout.
const (
	MaxTables    = 64
	MaxTableSize = 1<<26 - 1
	// firstIndexID is the id of sbtest1's PRIMARY index. [model] Any even
	// number reproduces the fact that a serial prepare gives every PK the
	// same parity (§12.1), so 8 tables on 8 partitions use 4 of them.
	firstIndexID = 32
)

// Spec constants (§3).
const (
	hashAnalysisLimit  = 17  // BTR_SEARCH_HASH_ANALYSIS
	buildLimit         = 100 // BTR_SEARCH_BUILD_LIMIT
	pageBuildLimit     = 16  // BTR_SEARCH_PAGE_BUILD_LIMIT
	legacyPotentialCap = buildLimit + 5
	// recOneFieldLeft is the recommendation of every sbtest lookup: one
	// field, LEFT_SIDE (§5 step 2 [derived]).
	recOneFieldLeft = 1<<31 | 1
)

// A Config describes one model instance.
type Config struct {
	Knobs      Knobs
	Tables     int   // queried tables sbtest1..Tables; 1..64
	TableSize  int64 // rows per queried table; 1..2^26-1
	Concurrent bool  // measured mode: real latches taken by concurrent goroutines
}

// Validate checks the layout and the knobs.
func (c Config) Validate() error {
	if c.Tables < 1 || c.Tables > MaxTables {
		return fmt.Errorf("model: tables %d outside 1..%d", c.Tables, MaxTables)
	}
	if c.TableSize < 1 || c.TableSize > MaxTableSize {
		return fmt.Errorf("model: table size %d outside 1..%d", c.TableSize, MaxTableSize)
	}
	if c.Knobs.DropTableRows > MaxTableSize {
		return fmt.Errorf("model: knob %s %d above %d", KnobDropTableRows, c.Knobs.DropTableRows, MaxTableSize)
	}
	if c.Knobs.NonLRUTables > c.Tables {
		return fmt.Errorf("model: knob %s %d above the %d tables", KnobNonLRUTables, c.Knobs.NonLRUTables, c.Tables)
	}
	return c.Knobs.Validate()
}

// A partition is one btr_sea::partition (§2.2). Its hash nodes are implicit:
// a record has a node exactly when its page is hashed, except colliding
// folds, which share one node (collisions.owner).
type partition struct {
	latch sync.RWMutex
	nodes atomic.Int64
	_     [40]byte // keep partitions' latches on separate cache lines
}

// A Model is the in-process InnoDB AHI: tables, buffer pool, partitions and
// the learning heuristics of spec §4–§9.
type Model struct {
	k          Knobs
	concurrent bool
	enabled    atomic.Bool
	parts      []partition
	tables     []*Table // queried tables, then the extra (droppable) one
	queried    int
	coll       *collisions
	owner      []atomic.Int64 // per collision group: packed (table<<32 | id) of the node's record, 0 = none
	cells      int            // hash cells per partition
	pool       *pool          // nil: everything resident
	dict       sync.Mutex     // the global dictionary mutex (dict_sys)
	ddl        Counters       // counters of DDL/admin work, under ddlMu
	ddlMu      sync.Mutex
	violations atomic.Int64 // ref_count decrements below zero (fatal in the server)
	workersMu  sync.Mutex
	workers    []*Worker
}

// New builds a model: tables with their implicit B+trees, partitions,
// collision groups (cached per layout) and the buffer pool. The AHI starts
// empty (cold) and enabled as the ahi knob says.
func New(cfg Config) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	k := cfg.Knobs
	m := &Model{k: k, concurrent: cfg.Concurrent, parts: make([]partition, k.Parts), queried: cfg.Tables}
	for i := 1; i <= cfg.Tables; i++ {
		m.tables = append(m.tables, m.newTable(i, cfg.TableSize, i <= k.NonLRUTables))
	}
	if k.DropTableRows > 0 {
		m.tables = append(m.tables, m.newTable(cfg.Tables+1, k.DropTableRows, false))
	}
	// [model] The extra (never queried) table's keys are left out of the
	// collision groups: they would only rarely displace a queried key's
	// node, and a 10M-row extra table would cost seconds to fold.
	m.coll = findCollisions(m.tables[:cfg.Tables], k.Parts)
	m.owner = make([]atomic.Int64, m.coll.groups)
	var pages int64
	for _, t := range m.tables {
		pages += int64(len(t.blocks))
	}
	m.cells = k.Cells
	if m.cells == 0 { // auto: pool bytes / 8 / 64, per partition (§2.1)
		poolPages := pages
		if k.PoolPages > 0 {
			poolPages = int64(k.PoolPages)
		}
		m.cells = int(max(1, poolPages*16384/8/64/int64(k.Parts)))
	}
	if k.PoolPages > 0 && int64(k.PoolPages) < pages {
		m.pool = newPool(m.tables, k.PoolPages)
	}
	m.enabled.Store(k.AHI)
	return m, nil
}

func (m *Model) newTable(num int, rows int64, nonLRU bool) *Table {
	ix := &Index{ID: uint64(firstIndexID + 2*(num-1)), Table: num, NonLRU: nonLRU}
	ix.Part = int(ix.ID % uint64(m.k.Parts))
	return newTable(num, rows, m.k.LeafRecords, m.k.Fanout, ix, m.concurrent)
}

// Knobs returns the model's knobs.
func (m *Model) Knobs() Knobs { return m.k }

// Enabled reports btr_search.enabled.
func (m *Model) Enabled() bool { return m.enabled.Load() }

// Table returns queried table num (1-based), or the extra table when num is
// Tables+1 and drop_table_rows > 0.
func (m *Model) Table(num int) *Table { return m.tables[num-1] }

// Tables returns the number of queried tables.
func (m *Model) Tables() int { return m.queried }

// Violations returns how often a ref_count would have gone below zero.
func (m *Model) Violations() int64 { return m.violations.Load() }

// A Worker is one session's private state: counters and random generator.
type Worker struct {
	C   Counters
	rng pointselect.Rand
}

// NewWorker returns a worker registered with the model (its counters are
// summed by Counters).
func (m *Model) NewWorker(seed uint64) *Worker {
	w := &Worker{}
	w.rng.Seed(seed)
	m.workersMu.Lock()
	m.workers = append(m.workers, w)
	m.workersMu.Unlock()
	return w
}

// Counters sums every worker's counters and the DDL counters. Call it when
// no lookup runs.
func (m *Model) Counters() Counters {
	var c Counters
	m.workersMu.Lock()
	for _, w := range m.workers {
		c.add(&w.C)
	}
	m.workersMu.Unlock()
	m.ddlMu.Lock()
	c.add(&m.ddl)
	m.ddlMu.Unlock()
	return c
}

// IndexStates returns the AHI state of every index (queried tables, then
// the extra one), counting hashed blocks now. Call it when quiescent.
func (m *Model) IndexStates() []IndexState {
	out := make([]IndexState, 0, len(m.tables))
	for _, t := range m.tables {
		ix := t.Index
		s := IndexState{Table: t.Num, IndexID: ix.ID, Part: ix.Part, NonLRU: ix.NonLRU,
			RefCount: ix.refCount.Load(), Potential: ix.nHashPotential.Load(),
			Freed: ix.freed.Load(), LazyFreed: ix.lazyFreed.Load()}
		for i := range t.blocks {
			if t.indexOf(&t.blocks[i]) == ix {
				s.HashedBlocks++
			}
		}
		out = append(out, s)
	}
	return out
}

// HashedFraction returns the share of the queried tables' leaf pages that
// are hashed.
func (m *Model) HashedFraction() float64 {
	var hashed, all int
	for _, t := range m.tables[:m.queried] {
		for i := range t.blocks {
			if t.indexOf(&t.blocks[i]) != nil {
				hashed++
			}
		}
		all += len(t.blocks)
	}
	return float64(hashed) / float64(all)
}

// Latch helpers: real latches only in concurrent (measured) mode. They
// count acquisitions and waits (a wait = the try failed first).
func (m *Model) lockS(w *Counters, p *partition) {
	w.PartLatchS++
	if m.concurrent && !p.latch.TryRLock() {
		w.PartWaitsS++
		t0 := nanotime()
		p.latch.RLock()
		w.PartWaitNs += uint64(nanotime() - t0)
	}
}

func (m *Model) unlockS(p *partition) {
	if m.concurrent {
		p.latch.RUnlock()
	}
}

func (m *Model) lockX(w *Counters, p *partition) {
	w.PartLatchX++
	if m.concurrent && !p.latch.TryLock() {
		w.PartWaitsX++
		t0 := nanotime()
		p.latch.Lock()
		w.PartWaitNs += uint64(nanotime() - t0)
	}
}

func (m *Model) unlockX(p *partition) {
	if m.concurrent {
		p.latch.Unlock()
	}
}
