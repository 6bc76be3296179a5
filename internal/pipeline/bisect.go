package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/perfbisect/perfbisect/internal/bisect"
	"github.com/perfbisect/perfbisect/internal/store"
)

// A Request is what a bisect was asked, stored as the bisect's request
// document so that `bisect --resume ID` can rebuild it.
type Request struct {
	Good string `json:"good"`
	Bad  string `json:"bad"`
	// Repo is the repository directory (real mode).
	Repo string `json:"repo,omitempty"`
	// DryRun marks a model bisect over Scenario (a built-in name or the
	// scenario file's content digest) with Seed.
	DryRun   bool   `json:"dry_run,omitempty"`
	Scenario string `json:"scenario,omitempty"`
	Seed     uint64 `json:"seed,omitempty"`
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

// A Bisect runs one bisect against the store: it checks the request
// before writing anything, resumes an earlier bisect of the same request
// (or the one named by ResumeID), journals every step, and stores the
// result.
type Bisect struct {
	Store    *store.Store
	History  bisect.History
	Measurer *Measurer
	Request  Request
	Progress bisect.Progress
	// ResumeID continues that bisect; "" resumes the newest bisect of the
	// same request, if any.
	ResumeID string
	// New starts a new bisect even when one of the same request exists.
	New bool
	// Document makes the stored result document from the engine's result
	// (the report's input); nil stores an Outcome.
	Document func(ctx context.Context, o *Outcome) (any, error)
	// Warn receives one-line notices (a journal that no longer replays).
	Warn func(msg string)
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
	// Document is what was stored as the result document.
	Document any `json:"-"`
}

// Check resolves the revisions and rejects requests with nothing to
// bisect, before anything is written.
func Check(ctx context.Context, h bisect.History, good, bad string) error {
	g, err := h.Resolve(ctx, good)
	if err != nil {
		return fmt.Errorf("good revision: %w", err)
	}
	b, err := h.Resolve(ctx, bad)
	if err != nil {
		return fmt.Errorf("bad revision: %w", err)
	}
	if g.Hash == b.Hash {
		return fmt.Errorf("--good %s and --bad %s are the same commit %s: nothing to bisect", good, bad, g.Short)
	}
	if back, err := h.IsAncestor(ctx, b.Hash, g.Hash); err != nil {
		return err
	} else if back {
		return fmt.Errorf("--bad %s (%s) is older than --good %s (%s): the range is empty; swap them (and add --improvement if the newer one is faster)",
			bad, b.Short, good, g.Short)
	}
	return nil
}

// Run checks, opens or resumes the stored bisect, runs the engine and
// stores the result.
func (b *Bisect) Run(ctx context.Context, cfg bisect.Config) (*Outcome, error) {
	if err := Check(ctx, b.History, b.Request.Good, b.Request.Bad); err != nil {
		return nil, err
	}
	row, resumed, err := b.open(ctx)
	if err != nil {
		return nil, err
	}
	eng := &bisect.Engine{History: b.History, Measurer: b.Measurer, Progress: b.Progress, Config: cfg,
		Journal: &Journal{Store: b.Store, BisectID: row.ID}}
	res, err := eng.Run(ctx, b.Request.Good, b.Request.Bad)
	if errors.Is(err, bisect.ErrJournalMismatch) && b.ResumeID == "" {
		// Steps recorded by another engine version: start a new bisect;
		// the stored runs are still reused, so nothing is measured twice.
		if b.Warn != nil {
			b.Warn(fmt.Sprintf("bisect %s was recorded by another perfbisect version and does not replay; starting a new one (stored runs are reused)", row.ID))
		}
		b.New = true
		if row, resumed, err = b.open(ctx); err != nil {
			return nil, err
		}
		eng.Journal = &Journal{Store: b.Store, BisectID: row.ID}
		res, err = eng.Run(ctx, b.Request.Good, b.Request.Bad)
	}
	if err != nil {
		if ctx.Err() == nil {
			msg, _ := json.Marshal(map[string]string{"error": err.Error()})
			b.Store.FinishBisect(context.WithoutCancel(ctx), row.ID, store.BisectFailed, msg)
		}
		return nil, fmt.Errorf("bisect %s: %w", row.ID, err)
	}
	o := &Outcome{BisectID: row.ID, Resumed: resumed, Request: b.Request, Result: res,
		Taken: b.Measurer.Taken, Reused: b.Measurer.Reused}
	o.Document = o
	if b.Document != nil {
		if o.Document, err = b.Document(ctx, o); err != nil {
			return nil, err
		}
	}
	doc := o.Document
	raw, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	if err := b.Store.FinishBisect(ctx, row.ID, store.BisectDone, raw); err != nil {
		return nil, err
	}
	return o, nil
}

// open finds the bisect to continue or creates one.
func (b *Bisect) open(ctx context.Context) (store.Bisect, bool, error) {
	if b.ResumeID != "" {
		row, err := b.Store.Bisect(ctx, b.ResumeID)
		if err != nil {
			return row, false, err
		}
		var req Request
		if err := json.Unmarshal(row.Request, &req); err != nil {
			return row, false, fmt.Errorf("bisect %s: unreadable request: %w", row.ID, err)
		}
		if req.WorkloadHash != b.Request.WorkloadHash {
			return row, false, fmt.Errorf("bisect %s was measured with another workload or on another machine; "+
				"rerun it with the same workload and server flags", row.ID)
		}
		return row, true, nil
	}
	key := b.Request.Key()
	if !b.New {
		row, err := b.Store.LatestBisect(ctx, key)
		if err == nil {
			return row, true, nil
		}
		if !errors.Is(err, store.ErrNotFound) {
			return row, false, err
		}
	}
	req, err := json.Marshal(b.Request)
	if err != nil {
		return store.Bisect{}, false, err
	}
	row := store.Bisect{RequestKey: key, Request: req}
	return row, false, b.Store.CreateBisect(ctx, &row)
}
