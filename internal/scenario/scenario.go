package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/perfbisect/perfbisect/internal/ahi"
)

// A Scenario is a commit history for a dry run: what each commit does to
// the model's knobs. FORMAT.md documents the JSON form.
type Scenario struct {
	Header
	Commits []Commit `json:"commits"`
}

// A Header is everything in a scenario but its commits. Materialize
// stores it in the root commit as SCENARIO.json (see HeaderAt).
type Header struct {
	Name        string   `json:"name"`                  // [a-z0-9][a-z0-9._-]*
	Description string   `json:"description,omitempty"` // free text
	NoiseCV     float64  `json:"noise_cv"`              // run-to-run coefficient of variation of TPS, 0 <= cv < 0.5
	Workload    Workload `json:"workload"`
}

// A Workload is the point-select workload a scenario is measured with.
type Workload struct {
	Tables    int   `json:"tables"`     // sysbench --tables, >= 1
	TableSize int64 `json:"table_size"` // sysbench --table-size, >= 1
	Threads   int   `json:"threads"`    // sysbench --threads, >= 1
}

// A Commit is one commit of a scenario.
type Commit struct {
	// ID names the commit inside the scenario (parents, cherry_pick);
	// required, unique, [A-Za-z0-9._-]+.
	ID string `json:"id"`
	// Subject is the first line of the commit message; required.
	Subject string `json:"subject"`
	// Parents are earlier IDs; empty means the previous commit in the
	// list (none for the first commit, the only root). Two or more make a
	// merge.
	Parents []string `json:"parents,omitempty"`
	// Tags are tag names put on this commit, unique in the scenario.
	Tags []string `json:"tags,omitempty"`
	// Branches are branch names put on this commit, unique in the
	// scenario. Without any, the last commit gets "main".
	Branches []string `json:"branches,omitempty"`
	// Knobs are the knob changes this commit makes; descendants inherit
	// them. A null value removes the knob (the model's default applies).
	Knobs Knobs `json:"knobs,omitempty"`
	// CherryPick is the ID of an earlier non-merge commit whose change
	// this commit re-applies, file for file, so git sees the same patch.
	// Exclusive with Knobs.
	CherryPick string `json:"cherry_pick,omitempty"`
}

// IsMerge reports whether c has two or more parents.
func (c Commit) IsMerge() bool { return len(c.Parents) > 1 }

// Parse reads and validates a scenario. Unknown fields are errors, so a
// typo ("knob" for "knobs") does not silently do nothing.
func Parse(data []byte) (*Scenario, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var s Scenario
	if err := dec.Decode(&s); err != nil {
		return nil, jsonError(data, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("trailing data after the scenario object")
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

// jsonError adds a line:column to JSON syntax and type errors.
func jsonError(data []byte, err error) error {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 {
		return fmt.Errorf("parsing scenario: %w", err)
	}
	before := data[:min(int(off), len(data))]
	line := bytes.Count(before, []byte("\n")) + 1
	col := len(before) - bytes.LastIndexByte(before, '\n')
	return fmt.Errorf("parsing scenario: line %d, column %d: %w", line, col, err)
}

var (
	nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)
	idRE   = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)
	knobRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
)

// Limits on the size of a scenario: a history longer than MaxCommits, or
// a file larger than MaxFileBytes, is refused with a one-line error.
const (
	MaxCommits   = 100_000
	MaxFileBytes = 64 << 20
)

// maxErrors is how many problems Validate and Check list before
// summing up the rest.
const maxErrors = 20

// Validate reports the problems of s at once (errors.Join; the first 20
// and a count of the rest), each naming the commit by position and ID.
// It checks the format only; Check also checks the knobs against the
// model.
func (s *Scenario) Validate() error {
	if len(s.Commits) > MaxCommits {
		return fmt.Errorf("%d commits: more than the limit of %d", len(s.Commits), MaxCommits)
	}
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if !nameRE.MatchString(s.Name) {
		add("name %q: want lower-case letters, digits, '.', '_' or '-'", s.Name)
	}
	if !(s.NoiseCV >= 0 && s.NoiseCV < 0.5) {
		add("noise_cv %g: want 0 <= noise_cv < 0.5", s.NoiseCV)
	}
	w := s.Workload
	if w.Tables < 1 || w.TableSize < 1 || w.Threads < 1 {
		add("workload %+v: tables, table_size and threads must all be >= 1", w)
	} else if err := (ahi.SimConfig{Knobs: ahi.DefaultKnobs(), Tables: w.Tables, TableSize: w.TableSize, Threads: w.Threads}).Validate(); err != nil {
		add("workload: %s", strings.TrimPrefix(strings.TrimPrefix(err.Error(), "simulate: "), "model: "))
	}
	if len(s.Commits) == 0 {
		add("no commits")
	}
	seen := map[string]int{}
	refs := map[string]string{}
	for i, c := range s.Commits {
		for _, e := range s.validateCommit(i, c, seen, refs) {
			errs = append(errs, fmt.Errorf("commit %d (%q): %w", i+1, c.ID, e))
		}
		if _, dup := seen[c.ID]; !dup && c.ID != "" {
			seen[c.ID] = i
		}
	}
	return joinCapped(errs)
}

// joinCapped joins the first maxErrors errors and counts the rest.
func joinCapped(errs []error) error {
	if len(errs) > maxErrors {
		errs = append(errs[:maxErrors:maxErrors], fmt.Errorf("and %d more problems", len(errs)-maxErrors))
	}
	return errors.Join(errs...)
}

// validateCommit checks commit i; seen maps earlier IDs to positions,
// refs tag and branch names to their owner.
func (s *Scenario) validateCommit(i int, c Commit, seen map[string]int, refs map[string]string) []error {
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if !idRE.MatchString(c.ID) {
		add("id %q: want letters, digits, '.', '_' or '-'", c.ID)
	} else if j, dup := seen[c.ID]; dup {
		add("id %q already used by commit %d", c.ID, j+1)
	}
	if strings.TrimSpace(c.Subject) == "" || strings.ContainsAny(c.Subject, "\r\n") {
		add("subject must be one non-empty line")
	}
	if i == 0 && len(c.Parents) > 0 {
		add("the first commit is the root and has no parents")
	}
	for k, p := range c.Parents {
		if _, ok := seen[p]; !ok {
			add("parent %q is not an earlier commit", p)
		}
		for _, q := range c.Parents[:k] {
			if q == p {
				add("parent %q listed twice", p)
			}
		}
	}
	for _, t := range c.Tags {
		add2(&errs, checkRef("tag", t, c.ID, refs, "tag:"))
	}
	for _, b := range c.Branches {
		add2(&errs, checkRef("branch", b, c.ID, refs, "branch:"))
	}
	for k, v := range c.Knobs {
		if !knobRE.MatchString(k) {
			add("knob %q: want lower-case letters, digits and '_'", k)
		}
		if v != nil && strings.ContainsAny(*v, "\r\n") {
			add("knob %s: the value must be one line", k)
		}
	}
	if c.CherryPick != "" {
		j, ok := seen[c.CherryPick]
		switch {
		case !ok:
			add("cherry_pick %q is not an earlier commit", c.CherryPick)
		case s.Commits[j].IsMerge():
			add("cherry_pick %q is a merge", c.CherryPick)
		}
		if len(c.Knobs) > 0 {
			add("cherry_pick and knobs are exclusive (a pick re-applies exactly the picked change)")
		}
		if len(c.Parents) > 1 {
			add("a cherry_pick commit cannot be a merge")
		}
	}
	return errs
}

func add2(errs *[]error, err error) {
	if err != nil {
		*errs = append(*errs, err)
	}
}

// checkRef validates a tag or branch name and records its owner.
func checkRef(kind, name, owner string, refs map[string]string, ns string) error {
	if !validRefName(name) {
		return fmt.Errorf("%s %q is not a valid git ref name", kind, name)
	}
	if prev, dup := refs[ns+name]; dup {
		return fmt.Errorf("%s %q already on commit %q", kind, name, prev)
	}
	refs[ns+name] = owner
	return nil
}

// validRefName applies the rules of git check-ref-format that matter here.
func validRefName(s string) bool {
	if s == "" || s == "@" || strings.HasPrefix(s, "-") || strings.HasPrefix(s, "/") ||
		strings.HasSuffix(s, "/") || strings.HasSuffix(s, ".") || strings.HasSuffix(s, ".lock") ||
		strings.Contains(s, "..") || strings.Contains(s, "//") || strings.Contains(s, "@{") {
		return false
	}
	for _, r := range s {
		if r <= ' ' || r == 0x7f || strings.ContainsRune("~^:?*[\\", r) {
			return false
		}
	}
	for _, part := range strings.Split(s, "/") {
		if strings.HasPrefix(part, ".") {
			return false
		}
	}
	return true
}

// parentsOf returns the parents of commit i with the default applied.
func (s *Scenario) parentsOf(i int) []string {
	if len(s.Commits[i].Parents) > 0 {
		return s.Commits[i].Parents
	}
	if i == 0 {
		return nil
	}
	return []string{s.Commits[i-1].ID}
}

// JSON returns s as indented JSON, in the form Parse reads.
func (s *Scenario) JSON() ([]byte, error) {
	return json.MarshalIndent(s, "", "  ")
}
