package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/perfbisect/perfbisect/internal/bisect"
)

// InputVersion is the version of the Input document this package writes
// and reads. Load rejects documents of a newer version.
const InputVersion = 1

// An Input is everything a report is rendered from: the engine's Result
// plus what the engine does not know (how the bisect was asked for, the
// benchmark, commit metadata, history order). It is plain data and is
// stored as a bisect's result document (see the package doc).
type Input struct {
	// Version is InputVersion; 0 is read as 1.
	Version int `json:"version"`
	// Result is the engine's answer.
	Result bisect.Result `json:"result"`
	// Request is how the bisect was asked for.
	Request Request `json:"request"`
	// Benchmark is the workload and machine every run used.
	Benchmark Benchmark `json:"benchmark"`
	// Details are per-commit metadata for the culprits, the endpoints, the
	// merge base and any other measured commit; missing ones render with
	// what Result knows (hash and subject). Order does not matter.
	Details []CommitDetails `json:"details,omitempty"`
	// History orders the measured commits: the merge base (when good is not
	// an ancestor of bad), then the good side oldest first, then the bad
	// side oldest first. Measured commits not listed follow in the order
	// they were measured. The observations table and the chart use it.
	History []HistoryEntry `json:"history,omitempty"`
	// Branches names the two sides of a non-ancestor bisect.
	Branches Branches `json:"branches"`
	// NetEffect are labelled versions (typically the tags of good, merge
	// base, bad and releases between) for the net-effect line. Empty: good,
	// merge base and bad, from Result.
	NetEffect []NetPoint `json:"net_effect,omitempty"`
	// Profiles say where each culprit's instructions per query went
	// (instructions bisects with callgrind dumps).
	Profiles []Profile `json:"profiles,omitempty"`
	// Confirmations hold an instructions verdict up against throughput:
	// each culprit against its parent, or good against bad when the
	// instruction counts did not differ.
	Confirmations []Confirmation `json:"confirmations,omitempty"`
	// Releases say, per culprit, which release tags of the two lines
	// contain it (or its equivalent) and which lack it, oldest first.
	Releases []Release `json:"releases,omitempty"`
}

// A Request is a bisect as the user asked for it.
type Request struct {
	// BisectID is the store's id of the bisect, "" if none.
	BisectID string `json:"bisect_id,omitempty"`
	// Good and Bad are the revisions as typed (tags, branches, hashes).
	Good string `json:"good"`
	Bad  string `json:"bad"`
	// RemoteURL is the repository's remote as configured (git@github.com:o/n.git,
	// https://github.com/o/n.git); commit links are derived from it when it
	// is on GitHub.
	RemoteURL string `json:"remote_url,omitempty"`
	// WebURL is the repository's web page (https://github.com/o/n); it
	// wins over RemoteURL. Options.WebURL wins over both.
	WebURL string `json:"web_url,omitempty"`
	// DryRun is true when the target was the in-process AHI model instead
	// of a MariaDB build: the report says so at the top.
	DryRun bool `json:"dry_run"`
	// Scenario names the dry-run scenario, "" for a real bisect.
	Scenario string `json:"scenario,omitempty"`
	// Model describes the model and its calibration (dry runs only).
	Model *ModelNotes `json:"model,omitempty"`
}

// ModelNotes say what a model-based report rests on.
type ModelNotes struct {
	// Description is one sentence on what the model is.
	Description string `json:"description,omitempty"`
	// Calibration lists the figures set to match measurements or chosen
	// by the modeller.
	Calibration []Calibration `json:"calibration,omitempty"`
}

// A Calibration is one figure of the model and where it comes from.
type Calibration struct {
	Name  string `json:"name"`  // the knob or figure, e.g. "ahi_lookup_ns"
	Value string `json:"value"` // as set, with its unit
	// Kind is "fact" (measured or read from MariaDB's source) or "choice"
	// (a modelling choice).
	Kind   string `json:"kind"`
	Source string `json:"source,omitempty"` // where the fact comes from, or why the choice
}

// A Benchmark is the workload configuration and the machine.
type Benchmark struct {
	Workload        string   `json:"workload"`                 // e.g. "oltp_point_select"
	Tables          int      `json:"tables"`                   // sysbench --tables
	TableSize       int64    `json:"table_size"`               // rows per table
	Threads         int      `json:"threads"`                  // client threads
	DurationSeconds float64  `json:"duration_seconds"`         // measured time per run
	WarmupSeconds   float64  `json:"warmup_seconds"`           // unmeasured warm-up per run
	RandType        string   `json:"rand_type,omitempty"`      // id distribution, e.g. "uniform"
	ServerOptions   []string `json:"server_options,omitempty"` // "name=value", as given to the server
	BuildRecipe     string   `json:"build_recipe,omitempty"`   // e.g. the cmake line, or "model"
	Machine         Machine  `json:"machine"`                  // where the runs ran
	Notes           []string `json:"notes,omitempty"`          // anything else, one line each
	ConfigHash      string   `json:"config_hash,omitempty"`    // the store's workload configuration hash
	Environment     string   `json:"environment_id,omitempty"` // the store's environment fingerprint
	// Hosts are the benchmark hosts that took the runs of a fleet bisect
	// (`bisect --fleet`), by name; empty for runs on this machine.
	Hosts []HostRuns `json:"hosts,omitempty"`
}

// HostRuns counts the runs one fleet host took, with the host's speed
// factor when the bisect removed host speeds (bisect.Result.HostFactors).
type HostRuns struct {
	Host  string  `json:"host"`
	Runs  int     `json:"runs"`
	Speed float64 `json:"speed,omitempty"`
}

// A Machine is the environment fingerprint in readable form.
type Machine struct {
	CPU         string `json:"cpu,omitempty"`
	Cores       int    `json:"cores,omitempty"`
	MemoryBytes int64  `json:"memory_bytes,omitempty"`
	Kernel      string `json:"kernel,omitempty"`
}

// CommitDetails are what git says about one commit.
type CommitDetails struct {
	Hash   string    `json:"hash"` // full hash, matching bisect.Commit.Hash
	Author string    `json:"author,omitempty"`
	Email  string    `json:"email,omitempty"`
	Date   time.Time `json:"date,omitzero"` // author date
	// Tags are the tags on this commit; the first names it in the
	// net-effect line.
	Tags []string `json:"tags,omitempty"`
	// Files are the files the commit changed (against its first parent),
	// in path order.
	Files []FileChange `json:"files,omitempty"`
	// OtherBranch says whether the change is present on the other side of
	// a non-ancestor bisect; nil when not checked. For culprits on the
	// good side Result's CheckedBadBranch/EquivalentOnBad win.
	OtherBranch *Presence `json:"other_branch,omitempty"`
	// SameBinaryAs is the full hash of another measured commit whose server
	// binary is byte-identical to this one's (a commit touching only tests
	// or docs): the two share one set of runs, so their figures are the
	// same measurements, not two that agree. "" for a binary of its own.
	// MarkSameBinaries fills it from each commit's binary digest.
	SameBinaryAs string `json:"same_binary_as,omitempty"`
	// Message is the commit message after the subject line (its body),
	// "" when there is none.
	Message string `json:"message,omitempty"`
	// Diff is an excerpt of the commit's diff against its first parent
	// (DiffExcerpt: the hunks of the files that matter), DiffOmitted the
	// number of diff lines it leaves out. Filled for culprits.
	Diff        string `json:"diff_excerpt,omitempty"`
	DiffOmitted int    `json:"diff_omitted_lines,omitempty"`
}

// A Release is a tagged version and whether it contains a culprit (or
// the culprit's equivalent change).
type Release struct {
	Tag string `json:"tag"` // as the report writes it: "12.0.1"
	// Culprit is the full hash of the culprit asked about.
	Culprit string `json:"culprit"`
	Has     bool   `json:"has"`
}

// A FileChange is one line of a diffstat.
type FileChange struct {
	Path    string `json:"path"`
	Added   int    `json:"added"`
	Deleted int    `json:"deleted"`
	Binary  bool   `json:"binary,omitempty"`
}

// Presence is the answer to "is this change on the other branch".
type Presence struct {
	Present bool `json:"present"`
	// Equivalent is the commit carrying the same change there, if present.
	Equivalent *bisect.Commit `json:"equivalent,omitempty"`
}

// A HistoryEntry places a commit in history order.
type HistoryEntry struct {
	Hash string `json:"hash"`
	// Side is "base" (the merge base), "good" (merge base..good) or "bad"
	// ((merge base or good)..bad).
	Side string `json:"side"`
}

// The sides of a HistoryEntry.
const (
	SideBase = "base"
	SideGood = bisect.BranchGood
	SideBad  = bisect.BranchBad
)

// Branches names the lines of a non-ancestor bisect, e.g. "11.8" and
// "12.0"; empty names render as the revisions typed.
type Branches struct {
	Good string `json:"good,omitempty"`
	Bad  string `json:"bad,omitempty"`
	// BaseName names the merge base, e.g. "11.8.1" (a tag or git describe).
	BaseName string `json:"base_name,omitempty"`
}

// A NetPoint is one labelled version on the net-effect line.
type NetPoint struct {
	Label string `json:"label"` // e.g. "12.0.0"
	Hash  string `json:"hash,omitempty"`
	// Mean is the version's level in the metric's unit: the median of its
	// valid runs (documents before medians: the mean). The JSON name stays.
	Mean float64 `json:"mean"`
	Runs int     `json:"runs"`
}

// Load decodes an Input document (as stored by the pipeline) and checks it.
func Load(doc []byte) (Input, error) {
	var in Input
	if len(doc) == 0 || string(doc) == "null" {
		return in, errors.New("report input: empty document (the bisect has no result yet)")
	}
	if err := json.Unmarshal(doc, &in); err != nil {
		return in, fmt.Errorf("report input: %w", err)
	}
	return in, in.Validate()
}

// Validate reports an Input that cannot be rendered.
func (in Input) Validate() error {
	var errs []error
	if in.Version > InputVersion {
		errs = append(errs, fmt.Errorf("version %d: this perfbisect reads up to %d", in.Version, InputVersion))
	}
	if in.Result.Status == "" {
		errs = append(errs, errors.New("result has no status"))
	}
	if in.Result.Good.Hash == "" || in.Result.Bad.Hash == "" {
		errs = append(errs, errors.New("result lacks the good or bad commit"))
	}
	for _, h := range in.History {
		if h.Side != SideBase && h.Side != SideGood && h.Side != SideBad {
			errs = append(errs, fmt.Errorf("history entry %s: side %q: want base, good or bad", short(h.Hash), h.Side))
		}
	}
	for _, d := range in.Details {
		if d.SameBinaryAs != "" && d.SameBinaryAs == d.Hash {
			errs = append(errs, fmt.Errorf("commit %s: same binary as itself", short(d.Hash)))
		}
	}
	for _, c := range in.Request.modelCalibration() {
		if c.Kind != "fact" && c.Kind != "choice" {
			errs = append(errs, fmt.Errorf("calibration %s: kind %q: want fact or choice", c.Name, c.Kind))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("report input: %w", errors.Join(errs...))
	}
	return nil
}

func (r Request) modelCalibration() []Calibration {
	if r.Model == nil {
		return nil
	}
	return r.Model.Calibration
}

// short abbreviates a full hash to 11 digits, MariaDB's habit.
func short(hash string) string {
	if len(hash) > 11 {
		return hash[:11]
	}
	return hash
}
