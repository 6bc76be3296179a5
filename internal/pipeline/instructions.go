package pipeline

import (
	"context"
	"fmt"
	"math"

	"github.com/perfbisect/perfbisect/internal/bisect"
	"github.com/perfbisect/perfbisect/internal/callgrind"
	"github.com/perfbisect/perfbisect/internal/runner"
	"github.com/perfbisect/perfbisect/internal/store"
)

// An InstructionsSampler takes instructions-per-query samples of real
// MariaDB builds: it builds the commit with Builds (and so shares its
// builds and its bench's prepared data), starts the build's mariadbd under
// callgrind on a copy of the data, and takes one sample of Callgrind's
// fixed query sequence per call. Consecutive samples of one commit share a
// session (one server start serves Callgrind.SamplesPerStart samples);
// Close stops the last one.
type InstructionsSampler struct {
	Builds    *BuildSampler
	Callgrind runner.Callgrind // DumpDir: where the dumps are kept (the cache)

	session *runner.CallgrindSession
	current string // commit of session
}

var _ Sampler = (*InstructionsSampler)(nil)

// Sample implements Sampler: the run's Metric is store.MetricInstructions,
// its Value the instructions per query, its ProfilePath the dump.
func (s *InstructionsSampler) Sample(ctx context.Context, c bisect.Commit, index int) (*store.Run, error) {
	b, art, err := s.Builds.build(ctx, c)
	if err != nil {
		return nil, err
	}
	if s.current != c.Hash {
		if err := s.Close(); err != nil {
			return nil, err
		}
		sess, err := s.Builds.Bench.OpenCallgrind(ctx, art.Prefix, art.Binary, c.Short, s.Callgrind)
		if err != nil {
			return nil, crashOr(err, c)
		}
		s.session, s.current = sess, c.Hash
	}
	smp, err := s.session.Sample(ctx)
	if err != nil {
		s.Close() // a failed sample leaves no server behind
		return nil, crashOr(err, c)
	}
	return runFromInstructions(smp, b.ID), nil
}

// BinaryOf returns the hash of commit c's server binary (see BuildSampler).
func (s *InstructionsSampler) BinaryOf(ctx context.Context, c bisect.Commit) (string, error) {
	return s.Builds.BinaryOf(ctx, c)
}

// Close stops the current session's server.
func (s *InstructionsSampler) Close() error {
	if s.session == nil {
		return nil
	}
	err := s.session.Close()
	s.session, s.current = nil, ""
	return err
}

// runFromInstructions converts a callgrind sample into a store run.
func runFromInstructions(smp *runner.InstrSample, buildID string) *store.Run {
	return &store.Run{BuildID: buildID, Metric: store.MetricInstructions, Value: smp.PerQuery,
		ProfilePath: smp.ProfilePath, StartedAt: smp.StartedAt, Duration: smp.Duration}
}

// InstructionsWorkload describes the instructions workload for the store:
// the data, the query sequence, the way of counting and valgrind's
// version, and this machine with the build recipe. Its ConfigHash differs
// from every TPS workload's. Without valgrind it is runner.ErrNoValgrind,
// before anything is built.
func InstructionsWorkload(ctx context.Context, p runner.Protocol, server runner.ServerConfig, cg runner.Callgrind, recipeHash string) (Workload, error) {
	run := p.Run.WithDefaults()
	cg = cg.WithDefaults()
	version, err := cg.Version(ctx)
	if err != nil {
		return Workload{}, err
	}
	toggle := cg.Toggle
	if cg.WholeServer {
		toggle = ""
	}
	cfg := struct {
		Metric    string   `json:"metric"`
		Tables    int      `json:"tables"`
		TableSize int64    `json:"table_size"`
		RandType  string   `json:"rand_type"`
		Queries   int      `json:"queries"`
		Warmup    int      `json:"warmup_queries"`
		Seed      uint64   `json:"seed"`
		Toggle    string   `json:"toggle_collect,omitempty"`
		Valgrind  string   `json:"valgrind"`
		PerStart  int      `json:"samples_per_start"`
		AHI       string   `json:"ahi,omitempty"`
		Options   []string `json:"server_options,omitempty"`
	}{store.MetricInstructions, run.Tables, run.TableSize, run.Rand.Type, cg.Queries, cg.Warmup, cg.Seed,
		toggle, version, cg.SamplesPerStart, server.AHI, server.Options}
	w, err := newWorkload("oltp_point_select", cfg)
	if err != nil {
		return w, err
	}
	w.Metric = store.MetricInstructions
	w.Environment = store.DetectEnvironment("recipe " + recipeHash)
	return w, nil
}

// InstructionDiff says where the instructions per query went from parent
// to culprit: their samples' dumps added up per side and compared per
// query, at most top functions per list, changes under half an
// instruction per query left out. Runs without a dump are skipped; a
// side without any is an error.
func InstructionDiff(parent, culprit []store.Run, top int) (callgrind.Diff, error) {
	before, err := profileSide(parent)
	if err != nil {
		return callgrind.Diff{}, fmt.Errorf("parent: %w", err)
	}
	after, err := profileSide(culprit)
	if err != nil {
		return callgrind.Diff{}, fmt.Errorf("culprit: %w", err)
	}
	return callgrind.Compare(before, after, "Ir", top, 0.5), nil
}

// profileSide parses and adds up the dumps of runs; each run's queries
// are its instructions over its instructions per query.
func profileSide(runs []store.Run) (callgrind.Side, error) {
	var ps []*callgrind.Profile
	var queries int64
	for _, r := range runs {
		if r.ProfilePath == "" || r.Value <= 0 {
			continue
		}
		p, err := callgrind.ParseFile(r.ProfilePath)
		if err != nil {
			return callgrind.Side{}, err
		}
		ps = append(ps, p)
		queries += int64(math.Round(float64(p.Total("Ir")) / r.Value))
	}
	if len(ps) == 0 {
		return callgrind.Side{}, fmt.Errorf("no callgrind dumps among %d runs", len(runs))
	}
	return callgrind.Side{Profile: callgrind.Sum(ps...), Queries: queries}, nil
}
