package report

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/perfbisect/perfbisect/internal/bisect"
)

// Options adjust rendering.
type Options struct {
	// WebURL overrides the repository web URL commits link to
	// (https://github.com/o/n); "" uses the Input's.
	WebURL string
	// SVGPath, when set, is the chart's SVG file as the Markdown should
	// reference it (relative to the report); the Mermaid block stays.
	SVGPath string
}

// A Report is the rendered content as data: what Markdown prints and
// JSON encodes. Build makes one from an Input.
type Report struct {
	Title      string        `json:"title"`
	Summary    []string      `json:"summary"` // two lines
	Status     bisect.Status `json:"status"`
	Regression bool          `json:"regression"`
	// Metric is what the runs measured (name, unit, direction); Unit is
	// its unit as printed ("TPS", "instructions/query").
	Metric bisect.Metric `json:"metric"`
	Unit   string        `json:"unit"`
	Noun   string        `json:"metric_noun"` // "throughput", "instructions per query"
	// Model is set for a model-based (dry-run) report.
	Model      *ModelSection `json:"model,omitempty"`
	Affected   string        `json:"affected_versions"`
	Config     []Field       `json:"benchmark_configuration"`
	Observed   []string      `json:"observed"`
	Expected   string        `json:"expected"`
	Culprits   []CulpritView `json:"culprits,omitempty"`
	Branch     []string      `json:"branch_context,omitempty"`
	Unresolved []string      `json:"unresolved,omitempty"`
	Rejected   []string      `json:"rejected,omitempty"`
	// Gradual are ranges over which the change is spread, one sentence
	// each; Identical commits not measured (identical binaries); Outliers
	// samples excluded and re-measured; BuildLimit says when the answer
	// is limited by build-to-build variance.
	Gradual    []string `json:"gradual,omitempty"`
	Identical  []string `json:"identical,omitempty"`
	Outliers   []string `json:"outliers,omitempty"`
	BuildLimit string   `json:"build_limit,omitempty"`
	// Confirmations are throughput checks not of a culprit: good against
	// bad when the instruction counts did not differ.
	Confirmations []ConfirmationView `json:"tps_confirmations,omitempty"`
	// Releases say which release tags carry each culprit, one line each.
	Releases []string `json:"affected_releases,omitempty"`
	// Reproduce re-measures the culprits; NextSteps are trials to run.
	Reproduce    []Command     `json:"reproduce,omitempty"`
	NextSteps    []Command     `json:"next_steps,omitempty"`
	Observations []Observation `json:"observations"`
	// InHistoryOrder is false when the Input gave no History: the
	// observations are then in the order measured.
	InHistoryOrder bool     `json:"in_history_order"`
	Chart          Chart    `json:"chart"`
	NetEffect      string   `json:"net_effect,omitempty"`
	NetNotes       []string `json:"net_notes,omitempty"`
	Method         []string `json:"method"`
	Warnings       []string `json:"warnings,omitempty"`
	WebURL         string   `json:"web_url,omitempty"`
	SVGPath        string   `json:"svg_path,omitempty"`
}

// A ModelSection says what a model-based report rests on.
type ModelSection struct {
	Scenario    string        `json:"scenario,omitempty"`
	Description string        `json:"description,omitempty"`
	Calibration []Calibration `json:"calibration,omitempty"`
}

// A Field is one line of the benchmark configuration block.
type Field struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// A CulpritView is one culprit as the technical analysis shows it.
type CulpritView struct {
	Hash        string        `json:"hash"`
	Short       string        `json:"short"`
	Subject     string        `json:"subject"`
	URL         string        `json:"url,omitempty"`
	Author      string        `json:"author,omitempty"`
	Email       string        `json:"email,omitempty"`
	Date        string        `json:"date,omitempty"` // author date, UTC
	Kind        string        `json:"kind"`           // "slowdown", "speed-up", "regression", "improvement"
	Side        string        `json:"side"`
	SideName    string        `json:"side_name"`
	Regression  bool          `json:"regression"`
	Parent      string        `json:"parent"`
	ParentURL   string        `json:"parent_url,omitempty"`
	Files       []FileChange  `json:"files,omitempty"`
	Added       int           `json:"added"`
	Deleted     int           `json:"deleted"`
	Effect      bisect.Change `json:"effect"`
	EffectValue float64       `json:"effect_value"` // new minus old level, in the metric's unit
	EffectLine  string        `json:"effect_line"`
	Verified    bool          `json:"verified"`
	Share       float64       `json:"share_of_range"`
	ShareLow    float64       `json:"share_low,omitempty"`
	ShareHigh   float64       `json:"share_high,omitempty"`
	// Gradual: one step of a change spread over several commits.
	Gradual bool `json:"gradual,omitempty"`
	// Profile says where the instructions went (instructions bisects);
	// Confirmation is the throughput check of the culprit against its
	// parent.
	Profile      *ProfileView      `json:"profile,omitempty"`
	Confirmation *ConfirmationView `json:"tps_confirmation,omitempty"`
	// Message is the commit message body; Diff an excerpt of its diff and
	// DiffNote what the excerpt leaves out.
	Message  string `json:"message,omitempty"`
	Diff     string `json:"diff_excerpt,omitempty"`
	DiffNote string `json:"diff_note,omitempty"`
	// With and Without are the release tags that contain the change
	// (or its equivalent) and those that lack it.
	With     []string `json:"releases_with,omitempty"`
	Without  []string `json:"releases_without,omitempty"`
	Presence string   `json:"presence,omitempty"` // on the other branch, as a sentence
}

// Build turns an Input into a Report. It is deterministic: the same Input
// and Options give the same Report.
func Build(in Input, opts Options) (*Report, error) {
	if err := in.Validate(); err != nil {
		return nil, err
	}
	base := webURL(in, opts.WebURL)
	t := newTexts(in, base)
	rep := &Report{
		Status:     in.Result.Status,
		Regression: in.Result.Regression,
		Metric:     t.mt.m,
		Unit:       t.mt.unit(),
		Noun:       t.mt.noun(),
		WebURL:     base,
		SVGPath:    opts.SVGPath,
		Warnings:   in.Result.Warnings,
	}
	if in.Request.DryRun {
		rep.Model = &ModelSection{Scenario: in.Request.Scenario}
		if in.Request.Model != nil {
			rep.Model.Description = in.Request.Model.Description
			rep.Model.Calibration = in.Request.Model.Calibration
		}
	}
	rep.Culprits = t.culprits()
	rep.Title = t.title()
	rep.Summary = t.summary(rep.Culprits)
	rep.Affected = t.affected()
	rep.Config = configFields(in.Benchmark, in.Result.Config)
	rep.Observed = t.observed()
	rep.Expected = t.expected()
	rep.Branch = t.branchContext()
	rep.Unresolved = t.unresolved()
	rep.Rejected = t.rejected()
	rep.Gradual, rep.Identical, rep.Outliers = t.gradual(), t.identical(), t.outliers()
	rep.BuildLimit = t.buildLimit()
	rep.Confirmations = t.otherConfirmations()
	rep.Releases = t.releases(rep.Culprits)
	rep.Reproduce, rep.NextSteps = t.reproduce(), t.nextSteps()
	rep.Observations = observations(in, base)
	rep.InHistoryOrder = len(in.History) > 0
	rep.Chart = chartOf(in, rep.Observations)
	rep.NetEffect, rep.NetNotes = t.netEffect()
	rep.Method = t.method()
	return rep, nil
}

// configFields is the benchmark configuration block, in a fixed order.
func configFields(b Benchmark, c bisect.Config) []Field {
	var f []Field
	add := func(name, value string) {
		if value != "" && value != "0" {
			f = append(f, Field{name, value})
		}
	}
	if b.Workload == "" {
		f = append(f, Field{"note", "the benchmark configuration was not recorded with this bisect"})
	}
	add("workload", b.Workload)
	add("tables", strconv.Itoa(b.Tables))
	add("table_size", strconv.FormatInt(b.TableSize, 10))
	add("threads", strconv.Itoa(b.Threads))
	if b.DurationSeconds > 0 {
		add("duration", seconds(b.DurationSeconds))
	}
	if b.WarmupSeconds > 0 {
		add("warmup", seconds(b.WarmupSeconds))
	}
	add("rand_type", b.RandType)
	opts := slicesSorted(b.ServerOptions)
	add("server_options", strings.Join(opts, " "))
	add("build", b.BuildRecipe)
	add("cpu", b.Machine.CPU)
	add("cores", strconv.Itoa(b.Machine.Cores))
	if b.Machine.MemoryBytes > 0 {
		add("memory", gib(b.Machine.MemoryBytes))
	}
	add("kernel", b.Machine.Kernel)
	add("environment", b.Environment)
	var hosts []string
	blocked := false
	for _, h := range b.Hosts {
		if h.Speed > 0 {
			blocked = true
			hosts = append(hosts, fmt.Sprintf("%s (%d runs, speed ×%.3f)", h.Host, h.Runs, h.Speed))
			continue
		}
		hosts = append(hosts, fmt.Sprintf("%s (%d runs)", h.Host, h.Runs))
	}
	if blocked {
		hosts = append(hosts, "each run divided by its host's speed before any test")
	}
	add("hosts", strings.Join(hosts, ", "))
	add("config_hash", b.ConfigHash)
	for _, n := range b.Notes {
		add("note", n)
	}
	add("min_effect", strings.TrimSuffix(strings.TrimPrefix(pct(c.MinEffect), "+"), " "))
	add("alpha", strconv.FormatFloat(c.Alpha, 'f', -1, 64))
	return f
}

func slicesSorted(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}
