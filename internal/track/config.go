package track

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/perfbisect/perfbisect/internal/changepoint"
	"github.com/perfbisect/perfbisect/internal/pipeline"
)

// A Config is what `perfbisect track` follows, read from a JSON file
// (docs/track.example.json). Unknown fields are errors.
type Config struct {
	// Clone is the MariaDB clone that is fetched, built and measured.
	// Required in real mode; ignored by dry runs (the scenario is the
	// clone).
	Clone string `json:"clone,omitempty"`
	// Remote is the remote fetched each night. Default "origin".
	Remote string `json:"remote,omitempty"`
	// Branches are the branches followed, e.g. ["10.11", "11.4", "main"].
	// Required.
	Branches []string `json:"branches"`
	// Metric is what a night measures. Only "tps" (the default) for now.
	Metric string `json:"metric,omitempty"`
	// Runs is the number of runs a night takes of each new tip. Default 5.
	Runs int `json:"runs,omitempty"`
	// Workload is how real commits are built, started and measured
	// (pipeline.RealSpec; its repo is Clone; time and warmup written as
	// "60s"). Unset fields take the defaults of `perfbisect bisect`.
	Workload Workload `json:"workload,omitzero"`
	// Detect tunes change-point detection. Default DefaultDetect (window 50,
	// p-value 0.0001: chosen on bench/nightly, where Otava's 30 and 0.001
	// raise about 4 false alarms per 1000 nights when every night is
	// tested).
	Detect changepoint.Options `json:"detect,omitzero"`
	// Confirm is the number of nights a change point must have after it
	// before it is acted on: a night or two of noise at the end of a
	// series is not bisected. Default 3.
	Confirm int `json:"confirm,omitempty"`
	// Slack widens each automatic bisect by this many nights on each side
	// of the change point, for change points located a few nights off (a
	// small step's location is uncertain; a wider bisect costs a step or
	// two). Default 4.
	Slack int `json:"slack,omitempty"`
	// GitHub is the repository issues are filed in (owner/name); "" files
	// nothing.
	GitHub string `json:"github,omitempty"`
	// Labels of filed issues. Default ["perfbisect", "performance"].
	Labels []string `json:"labels,omitempty"`
	// Night is the length of a night when a dry run derives nights from
	// its scenario's commit times. Default 24h.
	Night Duration `json:"night,omitzero"`
}

// A Workload is a pipeline.RealSpec whose durations are written "60s".
type Workload struct {
	pipeline.RealSpec
	Time   Duration `json:"time,omitzero"`   // each measured run; default bisect's
	Warmup Duration `json:"warmup,omitzero"` // unmeasured warm-up before each run
}

// Spec returns the RealSpec with the durations in place.
func (w Workload) Spec() pipeline.RealSpec {
	s := w.RealSpec
	if w.Time.Duration != 0 {
		s.Time = w.Time.Duration
	}
	if w.Warmup.Duration != 0 {
		s.Warmup = w.Warmup.Duration
	}
	return s
}

// DefaultDetect is the tracker's change-point detection.
// RefineWithin 2: each change point sits where the step most probably
// lies within 2 nights, chosen on bench/nightly (more steps located
// within 2 nights of their landing than at the least-squares split).
var DefaultDetect = changepoint.Options{Window: 50, PValue: 0.0001, HalfWindows: true, Refine: true, RefineWithin: 2}

// A Duration is a time.Duration written as "24h" in JSON.
type Duration struct{ time.Duration }

// UnmarshalJSON reads "24h", "90m", ….
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("duration: want a string such as \"24h\"")
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	d.Duration = v
	return nil
}

// MarshalJSON writes "24h0m0s".
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// IsZero reports an unset duration (for omitzero).
func (d Duration) IsZero() bool { return d.Duration == 0 }

// ReadConfig reads and checks a config file; defaults are applied.
func ReadConfig(path string) (Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return Config{}, fmt.Errorf("track config: %w", err)
	}
	defer f.Close()
	c, err := ParseConfig(f)
	if err != nil {
		return c, fmt.Errorf("track config %s: %w", path, err)
	}
	return c, nil
}

// ParseConfig reads a config; defaults are applied and the result is
// validated (without Clone: Validate(real) checks it).
func ParseConfig(r io.Reader) (Config, error) {
	data, err := io.ReadAll(io.LimitReader(r, 1<<20))
	if err != nil {
		return Config{}, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	c := Config{Workload: Workload{RealSpec: pipeline.DefaultRealSpec()}}
	if err := dec.Decode(&c); err != nil {
		return c, err
	}
	c = c.WithDefaults()
	return c, c.Validate(false)
}

// WithDefaults fills the documented defaults into unset fields.
func (c Config) WithDefaults() Config {
	c.Remote = cmp.Or(c.Remote, "origin")
	c.Metric = cmp.Or(c.Metric, "tps")
	c.Runs = cmp.Or(c.Runs, 5)
	c.Detect.Window = cmp.Or(c.Detect.Window, DefaultDetect.Window)
	c.Detect.PValue = cmp.Or(c.Detect.PValue, DefaultDetect.PValue)
	// The tracker always refines locations (the bisect range depends on
	// them) and also scans half windows (a series has many steps).
	c.Detect.Refine, c.Detect.HalfWindows = true, true
	c.Detect.RefineWithin = cmp.Or(c.Detect.RefineWithin, DefaultDetect.RefineWithin)
	c.Confirm = cmp.Or(c.Confirm, 3)
	c.Slack = cmp.Or(c.Slack, 4)
	c.Night.Duration = cmp.Or(c.Night.Duration, 24*time.Hour)
	return c
}

// Validate reports every nonsense setting at once; real also requires a
// clone.
func (c Config) Validate(real bool) error {
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if real && c.Clone == "" {
		add("clone: the MariaDB clone to follow is required")
	}
	if len(c.Branches) == 0 {
		add("branches: name at least one branch to follow")
	}
	seen := map[string]bool{}
	for _, b := range c.Branches {
		if b == "" || seen[b] {
			add("branches: %q is empty or listed twice", b)
		}
		seen[b] = true
	}
	if c.Metric != "tps" {
		add("metric %q: only \"tps\" can be tracked so far", c.Metric)
	}
	if c.Runs < 2 || c.Runs > 100 {
		add("runs %d: want 2 to 100 runs a night", c.Runs)
	}
	if c.Confirm < 1 || c.Confirm > 30 {
		add("confirm %d: want 1 to 30 nights", c.Confirm)
	}
	if c.Slack < 0 || c.Slack > 30 {
		add("slack %d: want 0 to 30 nights", c.Slack)
	}
	if c.Night.Duration < time.Minute {
		add("night %v: want at least a minute", c.Night)
	}
	if err := c.Detect.Validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
