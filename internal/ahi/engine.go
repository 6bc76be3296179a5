package ahi

import (
	"sort"
	"time"
)

// A window is a span of simulated time [from, to) in ns.
type window struct{ from, to int64 }

// eagerSchedule is the simulated timing of an eager DROP TABLE (§11.2,
// §12.5.4): hashed pages one after another, each first computing folds
// without the AHI latch (fold ns), then holding the partition latch X
// (erase ns); the dictionary mutex is held over the AHI phase [model].
type eagerSchedule struct {
	start, fold, period int64
	pages               int64
	part                int
}

func (e *eagerSchedule) end() int64 { return e.start + e.pages*e.period }

// xWait returns how long a lookup arriving at t waits for the partition
// latch X of the drop, if it needs partition part in S.
func (e *eagerSchedule) xWait(t int64, part int) int64 {
	if e == nil || part != e.part || t < e.start || t >= e.end() {
		return 0
	}
	off := (t - e.start) % e.period
	if off < e.fold {
		return 0
	}
	return e.period - off
}

// A desServer is the deterministic server: the model, Costs, the
// timeline (toggles, drop) and Cores simulated CPUs, fed by arrivals in
// nondecreasing simulated time (a discrete-event simulation). It is not
// safe for concurrent use.
type desServer struct {
	m       *Model
	costs   Costs
	speed   float64 // tps_factor × noise factor: service times are divided by it
	cores   []int64 // min-heap of the times the cores become free
	pending []timed // timeline events not yet applied, by time
	blocks  []window
	dict    window
	eager   *eagerSchedule
	drop    *DropReport
	// disturbed tells that the last event waited for the timeline (dict
	// mutex, disable, eager drop), so it is not a steady-state sample.
	disturbed bool
}

// A timed event of the timeline.
type timed struct {
	at   int64
	kind int // 0 toggle off, 1 toggle on, 2 drop
}

// A DropReport describes a simulated DROP TABLE.
type DropReport struct {
	Mode          DropMode
	At            time.Duration
	Duration      time.Duration // DDL statement time (eager: AHI work + non-AHI work; lazy: ~0)
	AHIWork       time.Duration // part of Duration spent dropping AHI entries under the dict mutex
	PagesTotal    int
	PagesHashed   int
	PagesDropped  int // by the DDL itself
	PendingLazily bool
}

func newDESServer(m *Model, costs Costs, speed float64) *desServer {
	s := &desServer{m: m, costs: costs, speed: speed, cores: make([]int64, costs.Cores)}
	k := m.k
	for _, t := range k.Toggles {
		kind := 0
		if t.On {
			kind = 1
		}
		s.pending = append(s.pending, timed{at: int64(t.At), kind: kind})
	}
	if k.DropAt >= 0 && k.DropTableRows > 0 {
		s.pending = append(s.pending, timed{at: int64(k.DropAt), kind: 2})
	}
	sort.SliceStable(s.pending, func(i, j int) bool { return s.pending[i].at < s.pending[j].at })
	return s
}

// nextChange returns the earliest time >= t at which the timeline acts
// (a pending event or an active window), or maxInt64.
func (s *desServer) nextChange(t int64) int64 {
	next := int64(1<<63 - 1)
	if len(s.pending) > 0 {
		next = min(next, max(t, s.pending[0].at))
	}
	for _, w := range s.blocks {
		if w.to > t {
			next = min(next, max(t, w.from))
		}
	}
	if s.dict.to > t {
		next = min(next, max(t, s.dict.from))
	}
	if s.eager != nil && s.eager.end() > t {
		next = min(next, max(t, s.eager.start))
	}
	return next
}

// advance applies the timeline events due at or before t.
func (s *desServer) advance(t int64) {
	for len(s.pending) > 0 && s.pending[0].at <= t {
		ev := s.pending[0]
		s.pending = s.pending[1:]
		switch ev.kind {
		case 0:
			visited := s.m.Disable()
			// [model] §12.5.6: lookups arriving while clear_hash_index
			// holds every partition latch X wait for it.
			s.blocks = append(s.blocks, window{ev.at, ev.at + int64(float64(visited)*s.costs.ClearBlockNs)})
		case 1:
			s.m.Enable()
		case 2:
			s.applyDrop(ev.at)
		}
	}
}

// applyDrop runs the DROP TABLE in the model and lays out its timing.
func (s *desServer) applyDrop(at int64) {
	mode := s.m.k.DropMode
	res, err := s.m.DropTable(mode)
	if err != nil {
		return // already dropped: a second drop_at cannot happen (one knob)
	}
	rep := &DropReport{Mode: mode, At: time.Duration(at), PagesTotal: res.PagesTotal,
		PagesHashed: res.PagesHashed, PagesDropped: res.PagesDropped, PendingLazily: res.Pending}
	if mode == DropEager {
		r := float64(s.m.k.LeafRecords)
		fold := int64(r * s.costs.DropFoldRecNs)
		period := fold + int64(r*s.costs.DropEraseRecNs)
		t := s.m.tables[len(s.m.tables)-1]
		s.eager = &eagerSchedule{start: at, fold: fold, period: period, pages: int64(res.PagesDropped), part: t.Index.Part}
		s.dict = window{at, s.eager.end()}
		rep.AHIWork = time.Duration(s.eager.end() - at)
		rep.Duration = rep.AHIWork + time.Duration(float64(res.PagesTotal)*s.costs.DropBasePageNs)
	} else {
		rep.Duration = time.Microsecond // [model] O(1): detach and return
	}
	s.drop = rep
}

// serve runs one event of worker w arriving at simulated time t and
// returns its latency in ns.
func (s *desServer) serve(w *Worker, t int64, table int, id int64) int64 {
	s.advance(t)
	start := t
	if p := s.m.k.DictMutexPerQuery; p > 0 && w.rng.Float64() < p && start >= s.dict.from && start < s.dict.to {
		w.C.DictWaits++
		w.C.DictWaitNs += uint64(s.dict.to - start)
		start = s.dict.to
	}
	for _, b := range s.blocks {
		if start >= b.from && start < b.to {
			w.C.PartWaitNs += uint64(b.to - start)
			start = b.to
		}
	}
	out := s.m.Lookup(w, table, id)
	if out.Part >= 0 {
		if wait := s.eager.xWait(start, int(out.Part)); wait > 0 {
			w.C.PartWaitsS++
			w.C.PartWaitNs += uint64(wait)
			start += wait
		}
	}
	s.disturbed = start != t
	service := int64(s.serviceNs(&out) / s.speed)
	var io int64
	if out.Miss {
		io = int64(s.costs.EvictReadNs) // waiting for storage, not CPU
	}
	// FCFS on the earliest free core.
	begin := max(start+io, s.cores[0])
	finish := begin + service
	s.cores[0] = finish
	siftDown(s.cores)
	return finish - t
}

// serviceNs converts what a lookup executed into CPU ns (Costs).
func (s *desServer) serviceNs(o *Outcome) float64 {
	c := &s.costs
	ns := c.QueryNs + float64(o.Levels)*c.DescentLevelNs
	switch o.Kind {
	case OutHit, OutFail:
		ns += c.HashGuessNs + float64(o.Chain)*c.ChainNodeNs
	case OutAbort:
		ns += c.HashAbortNs
	}
	if o.Analysed {
		ns += c.AnalysisNs
	}
	if o.UpdateRef {
		ns += c.UpdateRefNs
	}
	ns += float64(o.BuildRecs) * c.BuildRecNs
	ns += float64(o.DropRecs) * (c.DropFoldRecNs + c.DropEraseRecNs)
	return ns
}

// siftDown restores the min-heap property after h[0] grew.
func siftDown(h []int64) {
	i, n := 0, len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		j := l
		if r := l + 1; r < n && h[r] < h[l] {
			j = r
		}
		if h[i] <= h[j] {
			return
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
}

// shift moves the cores' free times by d (time skipping while sampling).
func (s *desServer) shift(d int64) {
	for i := range s.cores {
		s.cores[i] += d
	}
}
