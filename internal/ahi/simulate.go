package ahi

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"time"

	"github.com/perfbisect/perfbisect/internal/pointselect"
)

// SimConfig describes one direct deterministic run (no pointselect loop).
type SimConfig struct {
	Knobs     Knobs         // code variant and scenario; zero value is not valid, start from DefaultKnobs
	Tables    int           // queried tables; default 8
	TableSize int64         // rows per table; default 1,000,000
	Threads   int           // closed-loop client threads; default 128
	Duration  time.Duration // simulated run length, whole seconds; default 60s
	Seed      uint64        // seeds workers (uniform table and id, as sysbench --rand-type=uniform) and the noise
	NoiseCV   float64       // run-to-run noise: coefficient of variation of one multiplicative factor per run; default 0
	// SampleEvents is the number of events simulated over the whole run in
	// steady state (a per-second quota; quiet stretches are skipped in
	// simulated time). Default 50,000. Negative: simulate every event.
	SampleEvents int
	Costs        *Costs  // nil: DefaultCosts
	Cold         bool    // start with an empty AHI and learn it by real lookups instead of WarmUp
	Percentile   float64 // latency percentile; default 95
}

// withDefaults fills zero fields.
func (c SimConfig) withDefaults() SimConfig {
	c.Tables = cmp.Or(c.Tables, 8)
	c.TableSize = cmp.Or(c.TableSize, 1000000)
	c.Threads = cmp.Or(c.Threads, 128)
	c.Duration = cmp.Or(c.Duration, 60*time.Second)
	c.SampleEvents = cmp.Or(c.SampleEvents, 50000)
	c.Percentile = cmp.Or(c.Percentile, 95)
	return c
}

// Validate checks a SimConfig, zero fields taking their defaults.
func (c SimConfig) Validate() error {
	c = c.withDefaults()
	switch {
	case c.Threads < 1 || c.Threads > 100000:
		return fmt.Errorf("simulate: threads %d outside 1..100000", c.Threads)
	case c.Duration < time.Second || c.Duration > 24*time.Hour:
		return fmt.Errorf("simulate: duration %s outside 1s..24h", c.Duration)
	case c.NoiseCV < 0 || c.NoiseCV > 0.5:
		return fmt.Errorf("simulate: noise_cv %g outside 0..0.5", c.NoiseCV)
	case c.Percentile <= 0 || c.Percentile > 100:
		return fmt.Errorf("simulate: percentile %g outside (0, 100]", c.Percentile)
	}
	if c.Costs != nil {
		if err := c.Costs.Validate(); err != nil {
			return err
		}
	}
	return Config{Knobs: c.Knobs, Tables: c.Tables, TableSize: c.TableSize}.Validate()
}

// SimResult is the outcome of Simulate. Throughput figures already include
// tps_factor and the noise factor (see Calibration and NoiseFactor).
type SimResult struct {
	TPS, QPS     float64   // events (= queries: oltp_skip_trx) per simulated second
	LatencyAvgMs float64   // over simulated events
	LatencyPctMs float64   // at Percentile (sysbench histogram bucket)
	LatencyMaxMs float64   //
	Percentile   float64   //
	Intervals    []float64 // TPS per simulated second
	HitRate      float64   // hash hits / lookups over simulated events
	Counters     Counters  // of the simulated events (and DDL)
	Indexes      []IndexState
	Drop         *DropReport // nil without drop_at
	LongestStall time.Duration
	LowestTPS    float64 // lowest interval
	// Sampling
	Sampled     bool    // not every event of the duration was executed
	Events      int64   // events executed
	Represented int64   // events the run stands for (TPS × duration)
	SamplingSE  float64 // relative standard error of TPS from sampling (per-second spread / √seconds)
	// Calibration
	NoiseFactor float64  // the run's seeded noise factor (1 + NoiseCV·z)
	Calibration []string // figures tps_factor touched; empty when tps_factor = 1
	Notes       []string // fact/model labels for reports
}

// A simWorker is a client thread of the closed loop.
type simWorker struct {
	clock int64
	w     *Worker
}

// Simulate runs the model deterministically: the same config and seed give
// identical results on any machine.
func Simulate(ctx context.Context, cfg SimConfig) (SimResult, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return SimResult{}, err
	}
	costs := DefaultCosts()
	if cfg.Costs != nil {
		costs = *cfg.Costs
	}
	m, err := New(Config{Knobs: cfg.Knobs, Tables: cfg.Tables, TableSize: cfg.TableSize})
	if err != nil {
		return SimResult{}, err
	}
	startupCached(m, cfg.Tables, cfg.TableSize, !cfg.Cold)
	noise := pointselect.NewRand(cfg.Seed ^ 0x6e6f697365)
	res := SimResult{Percentile: cfg.Percentile, NoiseFactor: max(0.1, 1+cfg.NoiseCV*normal(noise))}
	srv := newDESServer(m, costs, cfg.Knobs.TPSFactor*res.NoiseFactor)
	workers := make([]simWorker, cfg.Threads)
	seed := cfg.Seed
	for i := range workers {
		workers[i] = simWorker{w: m.NewWorker(pointselect.SplitMix64(&seed))}
	}
	r := runner{cfg: cfg, m: m, srv: srv, heap: workers}
	r.preroll()
	if err := r.run(ctx); err != nil {
		return SimResult{}, err
	}
	r.fill(&res)
	return res, nil
}

// startup brings a fresh model to the run's starting state: warm (WarmUp)
// unless cold, then the [model] startup disable/enable cycle, then warm
// again.
func startup(m *Model, warm bool) {
	if warm {
		m.WarmUp()
	}
	if m.k.StartupCycle && m.enabled.Load() {
		m.Disable()
		m.Enable()
		if warm {
			m.WarmUp()
		}
	}
}

// runner executes the closed loop second by second.
type runner struct {
	cfg       SimConfig
	m         *Model
	srv       *desServer
	heap      []simWorker // min-heap by clock
	hist      latencies
	intervals []float64
	events    int64
	sampled   bool
	maxGap    int64
	latSum    int64 // latencies of the current second's undisturbed events
	steadyN   int64 // how many since the second began or the timeline last disturbed one
}

func (r *runner) run(ctx context.Context) error {
	secs := int(r.cfg.Duration / time.Second)
	quota := int64(-1)
	if r.cfg.SampleEvents > 0 {
		quota = max(int64(r.cfg.SampleEvents/secs), 200)
	}
	last := int64(0)
	for s := 0; s < secs; s++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		secEnd := int64(s+1) * 1e9
		var n int64
		r.latSum, r.steadyN = 0, 0
		built := r.buildCount()
		tps := -1.0
		for {
			t := r.heap[0].clock
			if t >= secEnd {
				break
			}
			if quota > 0 && r.steadyN >= quota && r.settled(built, n) && r.srv.nextChange(t) >= secEnd+1e7 {
				// The events so far count as they are; the rest of the
				// second runs at the steady rate, from Little's law for a
				// closed loop without think time: threads / mean latency
				// of the undisturbed events (unlike n/(t-ws) it is not
				// biased by cores finishing in lockstep).
				rate := float64(len(r.heap)) / (float64(r.latSum) / float64(r.steadyN)) * 1e9
				tps = float64(n) + rate*float64(secEnd-t)/1e9
				r.skip(secEnd - t)
				r.sampled = true
				last = secEnd
				break
			}
			r.maxGap = max(r.maxGap, t-last)
			last = t
			r.step(t)
			n++
		}
		if tps < 0 { // the whole second was simulated: count its arrivals
			tps = float64(n)
		}
		r.intervals = append(r.intervals, tps)
		r.events += n
	}
	return nil
}

// preroll runs the closed loop before time 0 until the client threads are
// spread over the cores as in steady state, then moves the clocks so the
// run starts at 0 (otherwise the first second would start with every
// thread arriving at once). Its events count in Counters but not in the
// figures.
func (r *runner) preroll() {
	const start = -int64(1e9)
	for i := range r.heap {
		r.heap[i].clock = start
	}
	r.srv.shift(start)
	for i := 0; i < 4*len(r.heap) && r.heap[0].clock < 0; i++ {
		t := r.heap[0].clock
		sw := &r.heap[0]
		lat := r.srv.serve(sw.w, t, int(intn(&sw.w.rng, int64(r.cfg.Tables)))+1, intn(&sw.w.rng, r.cfg.TableSize)+1)
		sw.clock = t + lat
		r.down(0)
	}
	r.skip(-r.heap[0].clock)
}

// step serves the event of the worker with the lowest clock.
func (r *runner) step(t int64) {
	sw := &r.heap[0]
	w := sw.w
	table := int(intn(&w.rng, int64(r.cfg.Tables))) + 1
	id := intn(&w.rng, r.cfg.TableSize) + 1
	lat := r.srv.serve(w, t, table, id)
	r.hist.add(lat)
	if r.srv.disturbed {
		r.latSum, r.steadyN = 0, 0
	} else {
		r.latSum += lat
		r.steadyN++
	}
	sw.clock = t + lat
	r.down(0)
}

func (r *runner) buildCount() uint64 {
	var b uint64
	for i := range r.heap {
		b += r.heap[i].w.C.PagesBuilt + r.heap[i].w.C.BuildsRefused
	}
	return b
}

// settled reports whether the AHI stopped learning in this window (fewer
// page builds than 1 % of its events), so skipping time does not stretch
// a warm-up.
func (r *runner) settled(before uint64, n int64) bool {
	return float64(r.buildCount()-before) <= float64(n)/100
}

// skip moves every clock by d: the configuration of a stationary closed
// loop is the same, only later.
func (r *runner) skip(d int64) {
	for i := range r.heap {
		r.heap[i].clock += d
	}
	r.srv.shift(d)
}

func (r *runner) down(i int) {
	h := r.heap
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		j := l
		if k := l + 1; k < n && h[k].clock < h[l].clock {
			j = k
		}
		if h[i].clock <= h[j].clock {
			return
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
}

// fill computes the result figures.
func (r *runner) fill(res *SimResult) {
	secs := float64(len(r.intervals))
	var sum, sq float64
	res.LowestTPS = math.Inf(1)
	for _, v := range r.intervals {
		sum += v
		sq += v * v
		res.LowestTPS = min(res.LowestTPS, v)
	}
	mean := sum / secs
	res.TPS, res.QPS = mean, mean
	res.Intervals = r.intervals
	if secs > 1 && mean > 0 {
		sd := math.Sqrt(max(0, sq/secs-mean*mean))
		res.SamplingSE = sd / mean / math.Sqrt(secs)
	}
	res.LatencyAvgMs = r.hist.avgMs()
	res.LatencyPctMs = r.hist.percentileMs(r.cfg.Percentile)
	res.LatencyMaxMs = float64(r.hist.maxNs) / 1e6
	res.Counters = r.m.Counters()
	res.HitRate = res.Counters.HitRate()
	res.Indexes = r.m.IndexStates()
	res.Drop = r.srv.drop
	res.LongestStall = time.Duration(r.maxGap)
	res.Sampled = r.sampled
	res.Events = r.events
	res.Represented = int64(sum)
	costs := DefaultCosts()
	if r.cfg.Costs != nil {
		costs = *r.cfg.Costs
	}
	res.Calibration, res.Notes = labels(labelInput{knobs: r.cfg.Knobs, costs: costs, threads: r.cfg.Threads,
		cold: r.cfg.Cold, noiseCV: r.cfg.NoiseCV, noiseFactor: res.NoiseFactor, sampled: res.Sampled,
		events: res.Events, represented: res.Represented, samplingSE: res.SamplingSE,
		indexes: res.Indexes, drop: res.Drop})
}
