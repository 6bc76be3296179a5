package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/perfbisect/perfbisect/internal/bisect"
	"github.com/perfbisect/perfbisect/internal/build"
	"github.com/perfbisect/perfbisect/internal/pointselect"
	"github.com/perfbisect/perfbisect/internal/repo"
	"github.com/perfbisect/perfbisect/internal/runner"
	"github.com/perfbisect/perfbisect/internal/store"
)

// A BuildSampler takes samples of real MariaDB builds: it builds the
// commit (or finds it built), opens a runner session on it and runs one
// repeat of the protocol per sample. Consecutive samples of one commit
// share a session; Close stops the last one.
type BuildSampler struct {
	Repo     *repo.Repo
	Builder  *build.Builder
	Bench    *runner.Bench
	Store    *store.Store
	Progress io.Writer // build and session progress (stderr); nil for none
	// Patch, when set, is applied to every commit's tree before it is
	// built (a patch trial): the builds are the patched trees'.
	Patch *build.Patch

	built   map[string]builtCommit // commit hash -> its build, this process
	session *runner.Session
	current string // commit of session
}

// Sample implements Sampler.
func (s *BuildSampler) Sample(ctx context.Context, c bisect.Commit, index int) (*store.Run, error) {
	b, art, err := s.build(ctx, c)
	if err != nil {
		return nil, err
	}
	if s.current != c.Hash {
		if err := s.Close(); err != nil {
			return nil, err
		}
		sess, err := s.Bench.Open(ctx, art.Prefix, art.Binary, c.Short)
		if err != nil {
			return nil, crashOr(err, c)
		}
		s.session, s.current = sess, c.Hash
	}
	res, err := s.session.Run(ctx)
	if err != nil {
		s.Close() // a failed repeat leaves no server behind
		return nil, crashOr(err, c)
	}
	return runFromResult(res, b.ID), nil
}

// BinaryOf returns the hash of commit c's server binary, building it if
// needed: equal hashes share measurements.
func (s *BuildSampler) BinaryOf(ctx context.Context, c bisect.Commit) (string, error) {
	b, _, err := s.build(ctx, c)
	return b.BinaryHash, err
}

// Close stops the current session's server.
func (s *BuildSampler) Close() error {
	if s.session == nil {
		return nil
	}
	err := s.session.Close()
	s.session, s.current = nil, ""
	return err
}

type builtCommit struct {
	row store.Build
	art *build.Artifact
	err error
}

// build returns the commit's build row and artifact, building once per
// tree and recipe; a failure stored earlier is not retried.
func (s *BuildSampler) build(ctx context.Context, c bisect.Commit) (store.Build, *build.Artifact, error) {
	if b, ok := s.built[c.Hash]; ok {
		return b.row, b.art, b.err
	}
	row, art, err := s.buildOnce(ctx, c)
	if ctx.Err() == nil {
		if s.built == nil {
			s.built = map[string]builtCommit{}
		}
		s.built[c.Hash] = builtCommit{row, art, err}
	}
	return row, art, err
}

func (s *BuildSampler) buildOnce(ctx context.Context, c bisect.Commit) (store.Build, *build.Artifact, error) {
	var src build.Source
	src, err := build.NewRepoSource(ctx, s.Repo, c.Hash)
	if err != nil {
		return store.Build{}, nil, err
	}
	if s.Patch != nil {
		src = &build.PatchedSource{Source: src, Patch: *s.Patch}
	}
	recipe := s.Builder.RecipeHash()
	prior, err := s.Store.FindBuild(ctx, src.TreeHash(), recipe)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return store.Build{}, nil, err
	}
	if err == nil && prior.Status == store.BuildFailed {
		return prior, nil, fmt.Errorf("%s did not build earlier (log %s): %w", c.Short, prior.LogPath, bisect.ErrUnbuildable)
	}
	art, berr := s.Builder.Build(ctx, src, s.Progress)
	if berr != nil && !errors.Is(berr, build.ErrUnbuildable) {
		return store.Build{}, nil, berr
	}
	if err == nil && berr == nil && prior.BinaryHash == art.BinaryHash {
		return prior, art, nil
	}
	row := store.Build{CommitHash: c.Hash, RecipeHash: recipe, TreeHash: src.TreeHash()}
	if berr != nil {
		var be *build.Error
		errors.As(berr, &be)
		row.Status, row.LogPath = store.BuildFailed, be.LogPath
	} else {
		row.Status, row.BinaryHash, row.Duration, row.LogPath = store.BuildOK, art.BinaryHash, art.Duration, art.LogPath
	}
	// PutBuild: another process may have stored this build meanwhile
	// (it built, we waited on the build lock and found it cached); then
	// row becomes that row, so a build is recorded once.
	if _, err := s.Store.PutBuild(ctx, &row); err != nil {
		return row, nil, err
	}
	if berr != nil {
		return row, nil, fmt.Errorf("%w: %w", berr, bisect.ErrUnbuildable)
	}
	return row, art, nil
}

// crashOr marks a server crash as bisect.ErrCrashed; other errors pass.
func crashOr(err error, c bisect.Commit) error {
	if runner.IsCrash(err) {
		return fmt.Errorf("%s: %w: %w", c.Short, bisect.ErrCrashed, err)
	}
	return err
}

// runFromResult converts a point-select result into a store run.
func runFromResult(res *pointselect.Result, buildID string) *store.Run {
	series := make([]float64, len(res.Intervals))
	for i, iv := range res.Intervals {
		series[i] = iv.TPS
	}
	r := &store.Run{BuildID: buildID, TPS: res.TPS, QPS: res.QPS,
		Latency: store.Latency{Min: res.Latency.Min, Avg: res.Latency.Avg, P95: res.Latency.P95, Max: res.Latency.Max},
		Series:  series, StartedAt: res.Start, Duration: res.Duration}
	if res.Errors > 0 || res.Reconnects > 0 {
		r.Error = fmt.Sprintf("%d ignored errors, %d reconnects", res.Errors, res.Reconnects)
	}
	return r
}

// RealWorkload describes the workload of real runs for the store: the
// protocol and server settings that change the numbers, and this machine
// with the build recipe.
func RealWorkload(p runner.Protocol, server runner.ServerConfig, recipeHash string) (Workload, error) {
	run := p.Run.WithDefaults()
	cfg := struct {
		Tables    int      `json:"tables"`
		TableSize int64    `json:"table_size"`
		Threads   int      `json:"threads"`
		Time      string   `json:"time"`
		Warmup    string   `json:"warmup"`
		RandType  string   `json:"rand_type"`
		Restart   bool     `json:"restart"`
		AHI       string   `json:"ahi,omitempty"`
		Options   []string `json:"server_options,omitempty"`
		CPUs      string   `json:"server_cpus,omitempty"`
	}{run.Tables, run.TableSize, run.Threads, run.Time.String(), run.Warmup.String(), run.Rand.Type,
		p.Restart, server.AHI, server.Options, server.CPUs}
	w, err := newWorkload("oltp_point_select", cfg)
	if err != nil {
		return w, err
	}
	w.Environment = store.DetectEnvironment("recipe " + recipeHash)
	return w, nil
}
