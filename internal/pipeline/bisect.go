package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/perfbisect/perfbisect/internal/bisect"
	"github.com/perfbisect/perfbisect/internal/report"
	"github.com/perfbisect/perfbisect/internal/store"
)

// A Request is what a bisect was asked, stored as the bisect's request
// document so that `bisect --resume ID` can rebuild it.
type Request struct {
	Good string `json:"good"`
	Bad  string `json:"bad"`
	// Spec is the target: the model over a scenario, or real builds.
	Spec Spec `json:"spec"`
	// Scenario and ScenarioDigest name the dry run's scenario and its
	// content, so an edited scenario file is a new request.
	Scenario       string `json:"scenario,omitempty"`
	ScenarioDigest string `json:"scenario_digest,omitempty"`
	// Config is the engine's statistical configuration.
	Config bisect.Config `json:"config"`
	// WorkloadHash identifies the workload and environment the samples
	// come from (Workload.ConfigHash + environment fingerprint).
	WorkloadHash string `json:"workload_hash"`
}

// Key identifies equal requests: rerunning the same command finds the
// bisect to resume by it.
func (r Request) Key() string {
	b, _ := json.Marshal(r)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12])
}

// BisectOptions are what one bisect of a Target is asked.
type BisectOptions struct {
	Good, Bad string
	Config    bisect.Config
	// ResumeID continues that stored bisect; "" resumes the newest bisect
	// of the same request, if any.
	ResumeID string
	// Fresh starts a new bisect and measures again instead of reusing
	// stored runs.
	Fresh bool
	// ConfirmRuns, for an instructions bisect, measures each culprit and
	// its parent with that many interleaved TPS runs (0: none).
	ConfirmRuns int
	// Remote, when set, gives the measurer the engine uses instead of the
	// target's local one, which it receives (fleet mode: package fleet).
	Remote func(local *Measurer) (bisect.Measurer, error)
}

// An Outcome is a finished bisect.
type Outcome struct {
	BisectID string         `json:"bisect_id"`
	Resumed  bool           `json:"resumed"`
	Request  Request        `json:"request"`
	Result   *bisect.Result `json:"result"`
	// Taken and Reused count samples measured by this process and read
	// back from the store.
	Taken  int `json:"taken"`
	Reused int `json:"reused"`
	// ModelNotes lists what a dry run's numbers rest on.
	ModelNotes []string `json:"model_notes,omitempty"`
	// Profiles say where each culprit's instructions went (instructions
	// bisects only).
	Profiles []Profile `json:"profiles,omitempty"`
	// Confirmations hold an instructions verdict up against throughput
	// (BisectOptions.ConfirmRuns).
	Confirmations []Confirmation `json:"confirmations,omitempty"`
	// Hosts counts the runs each fleet host took (`bisect --fleet`).
	Hosts map[string]int `json:"hosts,omitempty"`
	// Report is the report's input, also stored as the result document.
	Report report.Input `json:"-"`
}

// A HostCounter is a measurer whose samples other hosts took (the
// fleet's): it says how many each.
type HostCounter interface {
	Hosts(ctx context.Context) (map[string]int, error)
}

// An InterruptedError ends a bisect stopped by its context (Ctrl-C,
// SIGTERM): the bisect is marked interrupted and every run taken is kept.
type InterruptedError struct {
	BisectID string
	Err      error // the context's error
}

func (e *InterruptedError) Error() string {
	return fmt.Sprintf("interrupted: rerun the same command to resume bisect %s (every run taken is kept)", e.BisectID)
}

func (e *InterruptedError) Unwrap() error { return e.Err }

// ResumeRequest reads the request of stored bisect id, for --resume.
func ResumeRequest(ctx context.Context, s *store.Store, id string) (Request, error) {
	row, err := s.Bisect(ctx, id)
	if err != nil {
		return Request{}, fmt.Errorf("--resume %s: %w (list them with 'perfbisect db bisects')", id, err)
	}
	var req Request
	if err := json.Unmarshal(row.Request, &req); err != nil || req.Good == "" {
		return Request{}, fmt.Errorf("bisect %s was stored by another perfbisect version and cannot be resumed; start it again with --good and --bad", id)
	}
	return req, nil
}

// Bisect plans the bisect (resolving good and bad once; a bad request
// writes nothing), opens or resumes its stored record, runs the engine
// with every sample kept in the store, and stores the report's input as
// the result.
func (t *Target) Bisect(ctx context.Context, o BisectOptions) (*Outcome, error) {
	o.Config.Metric = t.Metric()
	eng := &bisect.Engine{History: t.History, Config: o.Config}
	plan, err := eng.Plan(ctx, o.Good, o.Bad)
	if err != nil {
		return nil, err
	}
	if plan.Reversed {
		return nil, plan.ReversedError(o.Good, o.Bad)
	}
	req := Request{Good: o.Good, Bad: o.Bad, Spec: t.Spec, Scenario: t.ScenarioName(), ScenarioDigest: t.ScenarioDigest, Config: o.Config,
		WorkloadHash: t.Workload.ConfigHash + "/" + t.Workload.Environment.Fingerprint()}
	owner := store.NewOwner()
	row, resumed, err := t.openBisect(ctx, req, o, owner)
	if err != nil {
		return nil, err
	}
	stop := t.store.KeepAlive(ctx, row.ID, owner, 0)
	defer func() { stop() }()
	m := t.Measurer(o.Fresh)
	eng.Measurer = m
	if o.Remote != nil {
		if eng.Measurer, err = o.Remote(m); err != nil {
			stop()
			t.release(ctx, row.ID, owner, store.BisectFailed, nil)
			return nil, err
		}
	}
	eng.Progress = newProgress(t.io, plan, o.Good, o.Bad)
	eng.Journal = &Journal{Store: t.store, BisectID: row.ID}
	res, err := eng.Execute(ctx, plan)
	for tries := 0; store.Unreachable(err) && ctx.Err() == nil && tries < maxStoreOutages; tries++ {
		stop()
		if err = t.awaitStore(ctx, row.ID, owner, err); err != nil {
			break
		}
		stop = t.store.KeepAlive(ctx, row.ID, owner, 0)
		res, err = eng.Execute(ctx, plan) // replays the journal: nothing is measured twice
	}
	if errors.Is(err, bisect.ErrJournalMismatch) && o.ResumeID == "" && ctx.Err() == nil {
		// Steps recorded by another engine version: start a new bisect;
		// the stored runs are still reused, so nothing is measured twice.
		t.io.Warnf("bisect %s was recorded by another perfbisect version and does not replay; starting a new one (stored runs are reused)", row.ID)
		stop()
		t.release(ctx, row.ID, owner, store.BisectFailed, nil)
		if row, err = t.createBisect(ctx, req, owner); err != nil {
			return nil, err
		}
		stop = t.store.KeepAlive(ctx, row.ID, owner, 0)
		resumed = false
		eng.Journal = &Journal{Store: t.store, BisectID: row.ID}
		res, err = eng.Execute(ctx, plan)
	}
	if err != nil {
		return nil, t.failBisect(ctx, row.ID, owner, err)
	}
	out := &Outcome{BisectID: row.ID, Resumed: resumed, Request: req, Result: res,
		Taken: m.Taken, Reused: m.Reused, ModelNotes: t.Notes()}
	if hc, ok := eng.Measurer.(HostCounter); ok {
		if out.Hosts, err = hc.Hosts(ctx); err != nil {
			t.io.Warnf("%v", err) // the verdict stands without it
		}
	}
	if out.Profiles, err = t.profiles(ctx, res); err != nil {
		t.io.Warnf("%v", err) // the verdict stands without it
	}
	if out.Confirmations, err = t.confirm(ctx, res, o.ConfirmRuns, o.Config); err != nil {
		if ctx.Err() != nil {
			return nil, t.failBisect(ctx, row.ID, owner, err)
		}
		t.io.Warnf("%v", err)
	}
	if out.Report, err = t.ReportInput(ctx, out); err != nil {
		return nil, t.failBisect(ctx, row.ID, owner, err)
	}
	raw, err := json.Marshal(out.Report)
	if err != nil {
		return nil, err
	}
	if err := t.release(ctx, row.ID, owner, store.BisectDone, raw); err != nil {
		return nil, err
	}
	return out, nil
}

// StoreWait is how long a bisect waits for its store's server to come
// back after losing it (a Postgres restart) before it gives up; and
// maxStoreOutages is how many outages one bisect outlasts.
const (
	StoreWait       = 10 * time.Minute
	maxStoreOutages = 10
)

// awaitStore waits for the store after err said it went away, and claims
// bisect id again for owner: the engine can then resume from its journal.
func (t *Target) awaitStore(ctx context.Context, id, owner string, err error) error {
	t.io.Warnf("the store went away (%v): waiting up to %s for it to come back, then resuming bisect %s", err, StoreWait, id)
	if werr := t.store.WaitReachable(ctx, StoreWait); werr != nil {
		return werr
	}
	if cerr := t.store.ClaimBisect(ctx, id, owner, 0); cerr != nil {
		return cerr
	}
	t.io.Printf("the store is back: resuming bisect %s", id)
	return nil
}

// release stores a bisect's result document (when given) and status, and
// ends this process's claim on it.
func (t *Target) release(ctx context.Context, id, owner string, status store.BisectStatus, doc []byte) error {
	if doc != nil {
		if err := t.store.FinishBisect(ctx, id, status, doc); err != nil {
			return err
		}
	}
	return t.store.ReleaseBisect(ctx, id, owner, status)
}

// failBisect records how a bisect ended early: interrupted (ctx) or
// failed, and returns the error to report.
func (t *Target) failBisect(ctx context.Context, id, owner string, err error) error {
	bg := context.WithoutCancel(ctx)
	if ctx.Err() != nil {
		msg, _ := json.Marshal(map[string]string{"interrupted": ctx.Err().Error()})
		if serr := t.release(bg, id, owner, store.BisectInterrupted, msg); serr != nil {
			t.io.Warnf("marking bisect %s interrupted: %v", id, serr)
		}
		return &InterruptedError{BisectID: id, Err: ctx.Err()}
	}
	msg, _ := json.Marshal(map[string]string{"error": err.Error()})
	if serr := t.release(bg, id, owner, store.BisectFailed, msg); serr != nil {
		t.io.Warnf("marking bisect %s failed: %v", id, serr)
	}
	return fmt.Errorf("bisect %s: %w", id, err)
}

// openBisect finds the bisect to continue or creates one.
// It claims the bisect for owner: a second process on the same bisect
// (or the same request) gets a *store.BusyError naming the first.
func (t *Target) openBisect(ctx context.Context, req Request, o BisectOptions, owner string) (store.Bisect, bool, error) {
	if o.ResumeID != "" {
		row, err := t.store.Bisect(ctx, o.ResumeID)
		if err != nil {
			return row, false, err
		}
		var stored Request
		if err := json.Unmarshal(row.Request, &stored); err != nil {
			return row, false, fmt.Errorf("bisect %s: unreadable request: %w", row.ID, err)
		}
		if stored.WorkloadHash != req.WorkloadHash {
			return row, false, fmt.Errorf("bisect %s was measured with another workload or on another machine; "+
				"rerun it with the same workload and server flags", row.ID)
		}
		if err := t.store.ClaimBisect(ctx, row.ID, owner, 0); err != nil {
			return row, false, err
		}
		t.io.Printf("resuming bisect %s", row.ID)
		return row, true, nil
	}
	if !o.Fresh {
		row, err := t.store.LatestBisect(ctx, req.Key())
		if err == nil {
			if err := t.store.ClaimBisect(ctx, row.ID, owner, 0); err != nil {
				return row, false, err
			}
			t.io.Printf("resuming bisect %s (the same request was started %s)", row.ID, row.CreatedAt.Local().Format("2006-01-02 15:04"))
			return row, true, nil
		}
		if !errors.Is(err, store.ErrNotFound) {
			return row, false, err
		}
	}
	row, err := t.createBisect(ctx, req, owner)
	return row, false, err
}

func (t *Target) createBisect(ctx context.Context, req Request, owner string) (store.Bisect, error) {
	raw, err := json.Marshal(req)
	if err != nil {
		return store.Bisect{}, err
	}
	row := store.Bisect{RequestKey: req.Key(), Request: raw, Owner: owner}
	if err := t.store.CreateBisect(ctx, &row); err != nil {
		return row, err
	}
	t.io.Printf("bisect %s: %s..%s (rerun the same command to resume it if it stops)", row.ID, req.Good, req.Bad)
	return row, nil
}
