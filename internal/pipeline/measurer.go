package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/perfbisect/perfbisect/internal/bisect"
	"github.com/perfbisect/perfbisect/internal/store"
)

// A Sampler takes one timed run of the workload on a commit: a real
// MariaDB build, or the AHI model reading the commit's knobs.
type Sampler interface {
	// Sample takes run number index (0-based) of commit c. The returned
	// run needs only its measured fields (TPS, QPS, latency, series,
	// timings); the Measurer fills in commit, workload, configuration and
	// environment. An error wrapping bisect.ErrUnbuildable or
	// bisect.ErrCrashed skips the commit.
	Sample(ctx context.Context, c bisect.Commit, index int) (*store.Run, error)
}

// A Workload identifies comparable runs: equal ConfigHash and Environment
// mean the samples may be pooled.
type Workload struct {
	Name        string          // "oltp_point_select"
	Metric      string          // what a sample measures: store.MetricTPS ("" too) or store.MetricInstructions
	Config      json.RawMessage // the full configuration, stored with each run
	ConfigHash  string          // hash of Config and anything else that changes the numbers
	Environment store.Environment
}

// metric is the store's name of the workload's metric.
func (w Workload) metric() string {
	if w.Metric == "" {
		return store.MetricTPS
	}
	return w.Metric
}

// unit names a sample's unit in progress lines.
func (w Workload) unit() string {
	if w.Metric == store.MetricInstructions {
		return "instructions/query"
	}
	if m, ok := dropMetrics[w.Metric]; ok {
		return m.Unit
	}
	return "tps"
}

// A Measurer is a bisect.Measurer that keeps every sample in the store.
// Samples already stored for the same commit, workload configuration and
// environment are returned instead of measured again (a killed bisect
// resumes; a later bisect reuses earlier runs); missing ones are taken
// from the Sampler and stored, each in its own transaction, as soon as it
// is taken.
type Measurer struct {
	Store   *store.Store
	Sampler Sampler
	// Commit describes a commit for the store (author, time).
	Commit   func(ctx context.Context, hash string) (store.Commit, error)
	Workload Workload
	// Fresh ignores stored samples taken before this Measurer was made.
	Fresh bool
	// BinaryOf, when set, names the server binary a commit builds to:
	// samples of any commit whose build produced a byte-identical binary
	// are this commit's samples too (a commit that touches only tests or
	// docs costs a build check and nothing else).
	BinaryOf func(ctx context.Context, c bisect.Commit) (string, error)
	// Log receives one line per run taken (stderr); nil for none.
	Log io.Writer
	// Warnf, when set, is told when a run waits for its store to come back.
	Warnf func(format string, args ...any)

	envID string
	known map[string]bool      // commits stored
	fresh map[string][]float64 // with Fresh: this process's samples
	// Taken and Reused count samples measured now and read from the store.
	Taken, Reused int
}

var (
	_ bisect.SampleMeasurer = (*Measurer)(nil)
	_ bisect.Identifier     = (*Measurer)(nil)
)

// Measure implements bisect.Measurer.
func (m *Measurer) Measure(ctx context.Context, c bisect.Commit, first, n int) ([]float64, error) {
	return bisect.MeasureValues(ctx, m, c, first, n)
}

// Identity implements bisect.Identifier with BinaryOf ("" without it).
func (m *Measurer) Identity(ctx context.Context, c bisect.Commit) (string, error) {
	if m.BinaryOf == nil {
		return "", nil
	}
	if err := m.prepare(ctx, c); err != nil { // a build row points at its commit
		return "", err
	}
	return m.BinaryOf(ctx, c)
}

// MeasureSamples implements bisect.SampleMeasurer: samples read from the
// store (earlier bisects, commits with the same binary) are marked
// reused; samples this Measurer takes now are fresh.
func (m *Measurer) MeasureSamples(ctx context.Context, c bisect.Commit, first, n int) ([]bisect.Sample, error) {
	if err := m.prepare(ctx, c); err != nil {
		return nil, err
	}
	have, err := m.stored(ctx, c)
	if err != nil {
		return nil, err
	}
	out := make([]bisect.Sample, 0, n)
	for i := first; i < first+n; i++ {
		if i < len(have) {
			out = append(out, bisect.Sample{Value: have[i], Reused: true})
			m.Reused++
			continue
		}
		if i > len(have) {
			return nil, fmt.Errorf("measuring %s: asked for sample %d with only %d stored", c.Short, i, len(have))
		}
		v, err := m.take(ctx, c, i)
		if err != nil {
			return nil, err
		}
		have = append(have, v)
		out = append(out, bisect.Sample{Value: v})
	}
	return out, nil
}

// prepare stores the environment and the commit once.
func (m *Measurer) prepare(ctx context.Context, c bisect.Commit) error {
	if m.known == nil {
		id, err := m.Store.PutEnvironment(ctx, m.Workload.Environment)
		if err != nil {
			return err
		}
		m.envID, m.known, m.fresh = id, map[string]bool{}, map[string][]float64{}
	}
	if m.known[c.Hash] {
		return nil
	}
	sc, err := m.Commit(ctx, c.Hash)
	if err != nil {
		return fmt.Errorf("describing %s: %w", c.Short, err)
	}
	if err := m.Store.PutCommit(ctx, sc); err != nil {
		return err
	}
	m.known[c.Hash] = true
	return nil
}

// stored returns the commit's successful samples in the order they were taken.
func (m *Measurer) stored(ctx context.Context, c bisect.Commit) ([]float64, error) {
	if m.Fresh {
		return m.fresh[c.Hash], nil
	}
	filter := store.RunFilter{CommitHash: c.Hash, ConfigHash: m.Workload.ConfigHash,
		EnvironmentID: m.envID, Status: store.RunOK, Metric: m.Workload.metric()}
	runs, err := m.Store.Runs(ctx, filter)
	if err != nil {
		return nil, err
	}
	if m.BinaryOf != nil {
		bin, err := m.BinaryOf(ctx, c)
		if err != nil {
			return nil, err
		}
		filter.CommitHash, filter.BinaryHash = "", bin
		same, err := m.Store.Runs(ctx, filter)
		if err != nil {
			return nil, err
		}
		runs = mergeRuns(runs, same)
	}
	values := make([]float64, len(runs))
	for i, r := range runs {
		values[i] = r.Value
	}
	return values, nil
}

// take measures sample index of c and stores it, also when it failed.
func (m *Measurer) take(ctx context.Context, c bisect.Commit, index int) (float64, error) {
	run, err := m.Sampler.Sample(ctx, c, index)
	if ctx.Err() != nil {
		return 0, ctx.Err() // an interrupted run is not a measurement: store nothing
	}
	if err != nil {
		if errors.Is(err, bisect.ErrCrashed) {
			failed := &store.Run{Status: store.RunCrashed, Error: err.Error(), Metric: m.Workload.Metric}
			m.fill(failed, c)
			if serr := m.addRun(ctx, failed); serr != nil {
				return 0, errors.Join(err, serr)
			}
		}
		return 0, err
	}
	m.fill(run, c)
	if err := m.addRun(ctx, run); err != nil {
		return 0, err
	}
	m.Taken++
	if m.Fresh {
		m.fresh[c.Hash] = append(m.fresh[c.Hash], run.Value)
	}
	if m.Log != nil {
		fmt.Fprintf(m.Log, "  %s run %d: %.1f %s\n", c.Short, index+1, run.Value, m.Workload.unit())
	}
	return run.Value, nil
}

// addRun stores a run just taken. When the store has gone away (a
// Postgres restart) it waits up to StoreWait for it to come back and
// stores the run then: a measurement is not thrown away, nor taken twice
// (AddRun of a run stored already does nothing).
func (m *Measurer) addRun(ctx context.Context, r *store.Run) error {
	err := m.Store.AddRun(ctx, r)
	for tries := 0; store.Unreachable(err) && ctx.Err() == nil && tries < maxStoreOutages; tries++ {
		if m.Warnf != nil {
			m.Warnf("the store went away (%v): keeping run %s of %.11s until it is back (up to %s)", err, r.ID, r.CommitHash, StoreWait)
		}
		if werr := m.Store.WaitReachable(ctx, StoreWait); werr != nil {
			return fmt.Errorf("%w (run %s of %.11s was taken but could not be stored)", werr, r.ID, r.CommitHash)
		}
		err = m.Store.AddRun(ctx, r)
	}
	return err
}

func (m *Measurer) fill(r *store.Run, c bisect.Commit) {
	r.ID = ""
	r.CommitHash, r.Workload = c.Hash, m.Workload.Name
	r.ConfigHash, r.Config, r.EnvironmentID = m.Workload.ConfigHash, m.Workload.Config, m.envID
	if r.Status == "" {
		r.Status = store.RunOK
	}
}

// newWorkload makes a Workload whose ConfigHash is the hash of config's JSON.
func newWorkload(name string, config any) (Workload, error) {
	b, err := json.Marshal(config)
	if err != nil {
		return Workload{}, err
	}
	sum := sha256.Sum256(b)
	return Workload{Name: name, Config: b, ConfigHash: hex.EncodeToString(sum[:8])}, nil
}

// mergeRuns returns the runs of a and b without duplicates, in the order
// they were taken.
func mergeRuns(a, b []store.Run) []store.Run {
	seen := make(map[string]bool, len(a))
	for _, r := range a {
		seen[r.ID] = true
	}
	for _, r := range b {
		if !seen[r.ID] {
			a = append(a, r)
			seen[r.ID] = true
		}
	}
	sort.SliceStable(a, func(i, j int) bool { return a[i].StartedAt.Before(a[j].StartedAt) })
	return a
}
