package store

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"time"
)

// A Commit is a revision that was built or measured.
type Commit struct {
	Hash    string // full hex hash
	Subject string
	Author  string
	Time    time.Time // author time
}

// A Build is one attempt to build a commit with a recipe.
type Build struct {
	ID         string // set by AddBuild when empty
	CommitHash string
	RecipeHash string // hash of the build recipe (flags, toolchain)
	TreeHash   string // git tree of the sources: equal trees build equal
	BinaryHash string // sha256 of mariadbd; "" for a failed build
	Status     BuildStatus
	Duration   time.Duration
	LogPath    string
	CreatedAt  time.Time // set by AddBuild when zero
}

// A BuildStatus is the outcome of a build.
type BuildStatus string

// Build outcomes.
const (
	BuildOK     BuildStatus = "ok"
	BuildFailed BuildStatus = "failed"
)

// A Run is one timed run of a workload against one commit's server.
type Run struct {
	ID            string // set by AddRun when empty
	CommitHash    string
	BuildID       string // "" when not built by perfbisect (dry run, system server)
	Workload      string // e.g. "oltp_point_select"
	ConfigHash    string // hash of Config: equal hashes are comparable runs
	Config        json.RawMessage
	EnvironmentID string
	TPS, QPS      float64
	Latency       Latency
	Series        []float64 // TPS of each second, in order
	StartedAt     time.Time
	Duration      time.Duration
	Status        RunStatus
	Error         string // why a failed or crashed run ended
	// Metric is what Value measures: MetricTPS (the default) or
	// MetricInstructions.
	Metric string
	// Value is the sample in Metric's unit: the run's TPS, or its
	// instructions per query. AddRun sets it to TPS for a TPS run without one.
	Value float64
	// ProfilePath is an instructions sample's callgrind dump; "" otherwise.
	ProfilePath string
	// Figures are the run's other figures by name (the drop-table-stall
	// workload's longest_stall, drop_dip, drop_duration); nil for none.
	Figures map[string]float64
}

// Metrics: what a run's Value measures.
const (
	// MetricTPS is throughput, transactions per second: higher is better.
	MetricTPS = "tps"
	// MetricInstructions is the server's instructions per query, counted
	// by callgrind: lower is better.
	MetricInstructions = "instructions"
)

// Latency summarises a run's event latencies, in milliseconds.
type Latency struct {
	Min, Avg, P95, Max float64
}

// A RunStatus is the outcome of a run.
type RunStatus string

// Run outcomes.
const (
	RunOK      RunStatus = "ok"
	RunFailed  RunStatus = "failed"
	RunCrashed RunStatus = "crashed"
)

// A RunFilter selects runs; empty fields match everything.
type RunFilter struct {
	CommitHash    string
	ConfigHash    string
	EnvironmentID string
	BinaryHash    string // runs whose build produced this mariadbd
	Status        RunStatus
	Metric        string // MetricTPS or MetricInstructions
}

// A Bisect is one bisect request and, once decided, its result.
type Bisect struct {
	ID         string // set by CreateBisect when empty
	RequestKey string // equal requests share a key, so a rerun finds the bisect to resume
	Request    json.RawMessage
	Status     BisectStatus
	Result     json.RawMessage // the engine's result document; null until done
	CreatedAt  time.Time
	UpdatedAt  time.Time
	// Owner is the process working on the bisect ("host:pid:token",
	// NewOwner), "" when none; set it before CreateBisect to create the
	// bisect claimed (see ClaimBisect).
	Owner string
	// HeartbeatAt is the owner's last sign of life; zero when unowned.
	HeartbeatAt time.Time
}

// A BisectStatus is where a bisect stands.
type BisectStatus string

// Bisect states.
const (
	BisectRunning BisectStatus = "running"
	BisectDone    BisectStatus = "done"
	BisectFailed  BisectStatus = "failed"
	// BisectInterrupted: stopped by Ctrl-C or SIGTERM; rerun to resume.
	BisectInterrupted BisectStatus = "interrupted"
)

// A BisectStep is one decision of a bisect, stored as it is made.
type BisectStep struct {
	BisectID   string
	Seq        int // 1, 2, 3… within the bisect
	CommitHash string
	Verdict    string // the engine's word: good, bad, skip, …
	Samples    int    // runs the decision used
	Detail     json.RawMessage
	CreatedAt  time.Time
}

// newID returns a random 16-hex-digit identifier.
func newID() string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return hex.EncodeToString(b[:])
}

// timeLayout is fixed-width, so stored times sort as text.
const timeLayout = "2006-01-02T15:04:05.000000Z"

func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

func parseTime(s string) time.Time {
	t, err := time.Parse(timeLayout, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// rawOrNull keeps a JSON column non-empty.
func rawOrNull(r json.RawMessage) string {
	if len(r) == 0 {
		return "null"
	}
	return string(r)
}
