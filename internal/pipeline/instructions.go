package pipeline

import (
	"context"
	"errors"
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
// fixed query sequence per call. A commit's samples share a session (one
// server start serves Callgrind.SamplesPerStart samples), and the sessions
// of the last few commits stay open: the engine interleaves two commits'
// samples, and a start under valgrind costs several samples' time. Close
// stops them all.
type InstructionsSampler struct {
	Builds    *BuildSampler
	Callgrind runner.Callgrind // DumpDir: where the dumps are kept (the cache)

	sessions []instrSession // most recently used last
}

type instrSession struct {
	commit string
	s      *runner.CallgrindSession
}

// maxInstrSessions is how many servers under valgrind stay open at once.
const maxInstrSessions = 3

var _ Sampler = (*InstructionsSampler)(nil)

// Sample implements Sampler: the run's Metric is store.MetricInstructions,
// its Value the instructions per query, its ProfilePath the dump.
func (s *InstructionsSampler) Sample(ctx context.Context, c bisect.Commit, index int) (*store.Run, error) {
	b, art, err := s.Builds.build(ctx, c)
	if err != nil {
		return nil, err
	}
	sess := s.take(c.Hash)
	if sess == nil {
		if len(s.sessions) >= maxInstrSessions { // stop the least recently used
			old := s.sessions[0]
			s.sessions = s.sessions[1:]
			if err := old.s.Close(); err != nil {
				return nil, err
			}
		}
		if sess, err = s.Builds.Bench.OpenCallgrind(ctx, art.Prefix, art.Binary, c.Short, s.Callgrind); err != nil {
			return nil, crashOr(err, c)
		}
	}
	smp, err := sess.Sample(ctx)
	if err != nil {
		sess.Close() // a failed sample leaves no server behind
		return nil, crashOr(err, c)
	}
	s.sessions = append(s.sessions, instrSession{c.Hash, sess})
	return runFromInstructions(smp, b.ID), nil
}

// take removes and returns commit's open session, or nil.
func (s *InstructionsSampler) take(commit string) *runner.CallgrindSession {
	for i, x := range s.sessions {
		if x.commit == commit {
			s.sessions = append(s.sessions[:i], s.sessions[i+1:]...)
			return x.s
		}
	}
	return nil
}

// BinaryOf returns the hash of commit c's server binary (see BuildSampler).
func (s *InstructionsSampler) BinaryOf(ctx context.Context, c bisect.Commit) (string, error) {
	return s.Builds.BinaryOf(ctx, c)
}

// Close stops every open session's server.
func (s *InstructionsSampler) Close() error {
	var errs []error
	for _, x := range s.sessions {
		errs = append(errs, x.s.Close())
	}
	s.sessions = nil
	return errors.Join(errs...)
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
