package pointselect

import (
	"context"
	"fmt"
	"time"
)

// runSimulated runs the workers as a discrete-event simulation in this
// goroutine: the worker whose virtual clock is lowest goes next, its
// PointSelect returns the event's simulated latency, and its clock moves
// by that much. Events are counted when they complete, ticks fire on the
// virtual clock, so equal seeds give equal results on any machine.
func (rs *runState) runSimulated(ctx context.Context) (*Result, error) {
	wallStart := time.Now()
	measureStart := rs.cfg.Warmup
	if rs.cfg.Warmup > 0 {
		fmt.Fprintf(rs.progress, "Warming up for %g simulated seconds...\n", rs.cfg.Warmup.Seconds())
	}
	iv := rs.cfg.SeriesInterval
	nextTick := measureStart + iv
	tickN := 1
	h := newClockHeap(len(rs.workers))
	for _, w := range rs.workers {
		w.clock, w.pending = 0, -1
		h.push(w)
	}
	rs.running.Store(int64(len(rs.workers)))
	var end time.Duration
	for n := 0; h.len() > 0; n++ {
		if n&4095 == 0 && ctx.Err() != nil {
			rs.stop.Store(true)
		}
		w := h.min()
		now := w.clock
		for nextTick <= now {
			rs.tick(tickN, (nextTick - measureStart).Seconds())
			tickN++
			nextTick += iv
		}
		if w.pending >= 0 {
			w.stats.record(w.pending)
			w.pending = -1
		}
		if !rs.simEvent(ctx, w, now-measureStart) {
			h.pop()
			rs.running.Add(-1)
			end = max(end, now)
			continue
		}
		h.fix0()
	}
	res := rs.result(end - measureStart)
	res.Simulated = true
	res.Start = wallStart
	return res, rs.finalErr(ctx)
}

// simEvent starts worker w's next event at elapsed (relative to the
// measured start) and moves its clock to the event's end. It returns
// false when the worker is done.
func (rs *runState) simEvent(ctx context.Context, w *worker, elapsed time.Duration) bool {
	table, id, ok := rs.next(w, elapsed)
	if !ok {
		return false
	}
	measuring := elapsed >= 0
	lat, err := rs.attempt(ctx, w, table, id, measuring)
	if err != nil {
		if err != errStopped {
			rs.fail(w, err)
		}
		return false
	}
	if lat <= 0 {
		lat = 1 // a zero latency would freeze the virtual clock
	}
	w.clock += lat
	if measuring {
		w.pending = lat
	}
	return true
}

// A clockHeap is a binary min-heap of workers by (clock, id); the id
// breaks ties so the order never depends on anything but the seeds.
type clockHeap struct{ ws []*worker }

func newClockHeap(n int) *clockHeap { return &clockHeap{ws: make([]*worker, 0, n)} }

func (h *clockHeap) len() int     { return len(h.ws) }
func (h *clockHeap) min() *worker { return h.ws[0] }
func (h *clockHeap) less(i, j int) bool {
	a, b := h.ws[i], h.ws[j]
	return a.clock < b.clock || (a.clock == b.clock && a.id < b.id)
}

func (h *clockHeap) push(w *worker) {
	h.ws = append(h.ws, w)
	i := len(h.ws) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(i, p) {
			break
		}
		h.ws[i], h.ws[p] = h.ws[p], h.ws[i]
		i = p
	}
}

func (h *clockHeap) pop() {
	last := len(h.ws) - 1
	h.ws[0] = h.ws[last]
	h.ws = h.ws[:last]
	if last > 0 {
		h.fix0()
	}
}

// fix0 restores the heap after the root's clock grew.
func (h *clockHeap) fix0() {
	i, n := 0, len(h.ws)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && h.less(r, l) {
			m = r
		}
		if !h.less(m, i) {
			return
		}
		h.ws[i], h.ws[m] = h.ws[m], h.ws[i]
		i = m
	}
}
