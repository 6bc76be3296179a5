package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/perfbisect/perfbisect/internal/ahi"
	"github.com/perfbisect/perfbisect/internal/bisect"
	"github.com/perfbisect/perfbisect/internal/repo"
	"github.com/perfbisect/perfbisect/internal/scenario"
	"github.com/perfbisect/perfbisect/internal/store"
	"github.com/perfbisect/perfbisect/internal/ui"
)

// ModelEnvironment is the environment of every dry-run sample: the model's
// numbers do not depend on the machine, so all machines share it.
var ModelEnvironment = store.Environment{CPUModel: "perfbisect AHI model (deterministic)", BuildOptions: "model"}

// A DryRun is a scenario materialised as a git repository, with the model
// standing in for "build and start MariaDB".
type DryRun struct {
	Scenario *scenario.Scenario
	Repo     *repo.Repo
	Sampler  *ModelSampler
	Workload Workload
	Digest   string // the scenario content's digest
}

// The dry run's fixed settings: the simulated length of one run, and the
// events the model executes per run (its sampling error stays well below
// the scenarios' noise).
const (
	dryRunDuration     = 60 * time.Second
	dryRunSampleEvents = 20000
)

// openDryRun materialises the spec's scenario (once per content, under
// cache/scenarios; later calls reuse the repository) and wires the model
// as its sampler.
func openDryRun(ctx context.Context, s *store.Store, spec Spec, cache string, io *ui.IO) (*Target, error) {
	sc, err := scenario.LoadContext(ctx, spec.Scenario)
	if err != nil {
		return nil, err
	}
	if spec.Seed == 0 {
		spec.Seed = 1
	}
	d, err := materializeDryRun(ctx, sc, filepath.Join(cache, "scenarios"), spec.Seed)
	if err != nil {
		return nil, err
	}
	io.Printf("dry run: scenario %s materialised in %s; the model stands in for MariaDB", sc.Name, d.Repo.Dir())
	return &Target{Spec: spec, store: s, Repo: d.Repo, History: &History{Repo: d.Repo}, Workload: d.Workload,
		ScenarioDigest: d.Digest, io: io, sampler: d.Sampler, benchmark: d.Benchmark(), model: d}, nil
}

// materializeDryRun materialises sc under dir and wires the model.
func materializeDryRun(ctx context.Context, sc *scenario.Scenario, dir string, seed uint64) (*DryRun, error) {
	content, err := sc.JSON()
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(content)
	digest := hex.EncodeToString(sum[:6])
	dir = filepath.Join(dir, sc.Name+"-"+digest)
	if err := materializeOnce(ctx, sc, dir); err != nil {
		return nil, err
	}
	r, err := repo.Open(ctx, dir)
	if err != nil {
		return nil, err
	}
	config, err := json.Marshal(struct {
		Mode         string            `json:"mode"`
		Scenario     string            `json:"scenario"`
		Digest       string            `json:"scenario_digest"`
		Workload     scenario.Workload `json:"workload"`
		NoiseCV      float64           `json:"noise_cv"`
		Duration     string            `json:"duration"`
		Seed         uint64            `json:"seed"`
		SampleEvents int               `json:"sample_events"`
	}{"model", sc.Name, digest, sc.Workload, sc.NoiseCV, dryRunDuration.String(), seed, dryRunSampleEvents})
	if err != nil {
		return nil, err
	}
	csum := sha256.Sum256(config)
	return &DryRun{
		Scenario: sc,
		Repo:     r,
		Digest:   digest,
		Sampler: &ModelSampler{Repo: r, Scenario: sc, Seed: seed, Duration: dryRunDuration,
			SampleEvents: dryRunSampleEvents},
		Workload: Workload{Name: "oltp_point_select", Config: config, ConfigHash: hex.EncodeToString(csum[:8]),
			Environment: ModelEnvironment},
	}, nil
}

// materializeOnce writes the scenario into dir unless a complete copy is
// there; it writes into a temporary sibling and renames, so a kill midway
// leaves no half repository.
func materializeOnce(ctx context.Context, sc *scenario.Scenario, dir string) error {
	if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".materialize-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if _, err := scenario.Materialize(ctx, sc, tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, dir); err != nil && !os.IsExist(err) {
		if _, serr := os.Stat(filepath.Join(dir, ".git")); serr == nil {
			return nil // another process won the race
		}
		return fmt.Errorf("materialising scenario %s: %w", sc.Name, err)
	}
	return nil
}

// A ModelSampler takes dry-run samples: the commit's knobs, read from its
// tree, drive ahi.Simulate. Sample index i of a commit always gives the
// same number for the same seed.
type ModelSampler struct {
	Repo         *repo.Repo
	Scenario     *scenario.Scenario
	Seed         uint64
	Duration     time.Duration
	SampleEvents int

	mu    sync.Mutex
	knobs map[string]ahi.Knobs
	// Notes collects the model's fact/model labels and calibrations seen.
	Notes map[string]bool
}

// Sample implements Sampler.
func (m *ModelSampler) Sample(ctx context.Context, c bisect.Commit, index int) (*store.Run, error) {
	k, err := m.knobsOf(ctx, c)
	if err != nil {
		return nil, err
	}
	w := m.Scenario.Workload
	start := time.Now()
	res, err := ahi.Simulate(ctx, ahi.SimConfig{Knobs: k, Tables: w.Tables, TableSize: w.TableSize, Threads: w.Threads,
		Duration: m.Duration, Seed: sampleSeed(m.Seed, c.Hash, index), NoiseCV: m.Scenario.NoiseCV,
		SampleEvents: m.SampleEvents})
	if err != nil {
		return nil, fmt.Errorf("model run of %s: %w", c.Short, err)
	}
	m.note(res)
	return &store.Run{TPS: res.TPS, QPS: res.QPS,
		Latency: store.Latency{Avg: res.LatencyAvgMs, P95: res.LatencyPctMs, Max: res.LatencyMaxMs},
		Series:  res.Intervals, StartedAt: start, Duration: m.Duration}, nil
}

func (m *ModelSampler) knobsOf(ctx context.Context, c bisect.Commit) (ahi.Knobs, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if k, ok := m.knobs[c.Hash]; ok {
		return k, nil
	}
	raw, err := scenario.KnobsAt(ctx, m.Repo, c.Hash)
	if err != nil {
		return ahi.Knobs{}, err
	}
	k, err := ahi.ParseKnobs(raw)
	if err != nil {
		return ahi.Knobs{}, fmt.Errorf("knobs of %s: %w", c.Short, err)
	}
	if m.knobs == nil {
		m.knobs = map[string]ahi.Knobs{}
	}
	m.knobs[c.Hash] = k
	return k, nil
}

func (m *ModelSampler) note(res ahi.SimResult) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.Notes == nil {
		m.Notes = map[string]bool{}
	}
	for _, n := range res.Notes {
		m.Notes[n] = true
	}
	for _, c := range res.Calibration {
		m.Notes["calibration: "+c] = true
	}
}

// sampleSeed derives the seed of sample index of a commit.
func sampleSeed(seed uint64, hash string, index int) uint64 {
	h := sha256.New()
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], seed)
	binary.LittleEndian.PutUint64(b[8:], uint64(index))
	h.Write(b[:])
	h.Write([]byte(hash))
	return binary.LittleEndian.Uint64(h.Sum(nil))
}
