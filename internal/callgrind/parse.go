// Package callgrind reads the profiles that valgrind's callgrind tool
// writes (the "callgrind format" of valgrind's manual, chapter "Callgrind
// Format Specification") and compares two of them: the totals, each
// function's self and inclusive cost with its file, and the functions
// whose cost per query changed most between two profiles.
package callgrind

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A Profile is one parsed callgrind dump.
type Profile struct {
	// Events are the event names of the "events:" line, e.g. ["Ir"].
	Events []string
	// Cmd and PID are the profiled command line and process.
	Cmd string
	PID int
	// Summary and Totals are the "summary:" and "totals:" lines, one value
	// per event; nil when the dump has none.
	Summary, Totals []int64
	// Functions holds every function with a cost or a call, by Key.
	Functions map[string]*Function
	// self is the sum of all self costs, per event.
	self []int64
}

// A Function is one function of a profile and its costs, one value per
// event of the profile.
type Function struct {
	Name   string // as callgrind names it (demangled when the dump was)
	File   string // its source file, "???" without debug information
	Object string // the ELF object (executable or shared library)
	// Self is the cost of the function's own instructions (inlined code
	// included); Inclusive adds the cost of the calls it makes, except
	// direct recursion, as callgrind_annotate --inclusive=yes does.
	Self, Inclusive []int64
	// Calls counts the calls made to it that the dump recorded.
	Calls int64

	defined bool // seen at an fn= line (else only as a callee)
}

// Key identifies a function across profiles: its name and the base name
// of its object, so the same function of two builds installed in
// different directories has the same key.
func Key(name, object string) string {
	if object == "" {
		return name
	}
	return name + " [" + filepath.Base(object) + "]"
}

// Total returns the profile's total of event: the "totals:" line, else
// the "summary:" line, else the sum of all self costs. It is 0 for an
// event the profile does not have.
func (p *Profile) Total(event string) int64 {
	i := p.eventIndex(event)
	switch {
	case i < 0:
		return 0
	case i < len(p.Totals):
		return p.Totals[i]
	case i < len(p.Summary):
		return p.Summary[i]
	case i < len(p.self):
		return p.self[i]
	}
	return 0
}

// SelfSum returns the sum of every function's self cost of event: equal
// to the totals of a complete dump.
func (p *Profile) SelfSum(event string) int64 {
	if i := p.eventIndex(event); i >= 0 && i < len(p.self) {
		return p.self[i]
	}
	return 0
}

func (p *Profile) eventIndex(event string) int {
	for i, e := range p.Events {
		if e == event {
			return i
		}
	}
	return -1
}

// ParseFile parses the callgrind dump at path.
func ParseFile(path string) (*Profile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := Parse(f)
	if err != nil {
		return nil, fmt.Errorf("callgrind dump %s: %w", path, err)
	}
	return p, nil
}

// Parse reads one callgrind dump.
func Parse(r io.Reader) (*Profile, error) {
	ps := newParser()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		ps.line++
		if err := ps.parseLine(sc.Text()); err != nil {
			return nil, fmt.Errorf("line %d: %w", ps.line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(ps.p.Events) == 0 {
		return nil, fmt.Errorf("no events: line (not a callgrind dump?)")
	}
	return ps.p, nil
}

// A parser holds the state of the format's position and name
// compression while a dump is read.
type parser struct {
	p    *Profile
	line int
	// positions is the number of position columns of a cost line.
	positions int
	// name tables of the compression "(id) name", one per kind.
	objects, files, fns map[string]string
	// context: the current object, file and function; the pending call.
	ob, fl string
	fn     *Function
	cob    string
	cfi    string
	cfn    string
	inCall bool // the next cost line is a call's inclusive cost
}

func newParser() *parser {
	return &parser{p: &Profile{Functions: map[string]*Function{}}, positions: 1,
		objects: map[string]string{}, files: map[string]string{}, fns: map[string]string{}}
}

// parseLine handles one line of the dump.
func (ps *parser) parseLine(s string) error {
	if s == "" || s[0] == '#' {
		return nil
	}
	c := s[0]
	if c >= '0' && c <= '9' || c == '+' || c == '-' || c == '*' {
		return ps.costLine(s)
	}
	key, val, ok := cutSpec(s)
	if !ok {
		return nil // an unknown line: the format allows extensions
	}
	switch key {
	case "events":
		ps.p.Events = strings.Fields(val)
	case "positions":
		ps.positions = len(strings.Fields(val))
	case "summary", "totals":
		v, err := parseInts(strings.Fields(val))
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		if key == "summary" {
			ps.p.Summary = v
		} else {
			ps.p.Totals = v
		}
	case "cmd":
		ps.p.Cmd = strings.TrimSpace(val)
	case "pid":
		ps.p.PID, _ = strconv.Atoi(strings.TrimSpace(val))
	case "ob":
		ps.ob = ps.name(ps.objects, val)
	case "fl":
		ps.fl = ps.name(ps.files, val)
	case "fi", "fe":
		ps.name(ps.files, val) // inlined code: its cost stays the function's
	case "fn":
		ps.enterFunction(ps.name(ps.fns, val))
	case "cob":
		ps.cob = ps.name(ps.objects, val)
	case "cfi", "cfl":
		ps.cfi = ps.name(ps.files, val)
	case "cfn":
		ps.cfn = ps.name(ps.fns, val)
	case "calls":
		return ps.calls(val)
	}
	return nil
}

// cutSpec splits "key=value" or "key: value"; ok is false for anything else.
func cutSpec(s string) (key, val string, ok bool) {
	i := strings.IndexAny(s, "=:")
	if i <= 0 {
		return "", "", false
	}
	return s[:i], s[i+1:], true
}

// name resolves the compression "(id) name" / "(id)" / "name" of table.
func (ps *parser) name(table map[string]string, val string) string {
	val = strings.TrimSpace(val)
	if !strings.HasPrefix(val, "(") {
		return val
	}
	end := strings.IndexByte(val, ')')
	if end < 0 {
		return val
	}
	id, rest := val[1:end], strings.TrimSpace(val[end+1:])
	if rest == "" {
		return table[id]
	}
	table[id] = rest
	return rest
}

func (ps *parser) enterFunction(name string) {
	key := Key(name, ps.ob)
	f := ps.p.Functions[key]
	if f == nil {
		f = &Function{Name: name, Object: ps.ob}
		ps.p.Functions[key] = f
	}
	if !f.defined { // the file of fn= wins over a caller's cfi=
		f.File, f.defined = ps.fl, true
	}
	ps.fn, ps.cob, ps.cfi, ps.cfn, ps.inCall = f, "", "", "", false
}

// calls starts a call record: "calls=count target"; the next cost line is
// the call's inclusive cost.
func (ps *parser) calls(val string) error {
	fields := strings.Fields(val)
	if len(fields) == 0 {
		return fmt.Errorf("calls= without a count")
	}
	n, err := strconv.ParseInt(fields[0], 10, 64)
	if err != nil {
		return fmt.Errorf("calls=%s: %w", val, err)
	}
	ob := ps.cob
	if ob == "" {
		ob = ps.ob
	}
	if ps.cfn != "" {
		key := Key(ps.cfn, ob)
		callee := ps.p.Functions[key]
		if callee == nil {
			file := ps.cfi
			if file == "" {
				file = ps.fl
			}
			callee = &Function{Name: ps.cfn, File: file, Object: ob}
			ps.p.Functions[key] = callee
		}
		callee.Calls += n
	}
	ps.inCall = true
	return nil
}

// costLine adds a cost line to the current function: its self cost, or
// after calls= the inclusive cost of that call.
func (ps *parser) costLine(s string) error {
	fields := strings.Fields(s)
	if len(fields) < ps.positions {
		return fmt.Errorf("cost line %q: fewer than %d positions", s, ps.positions)
	}
	costs, err := parseInts(fields[ps.positions:])
	if err != nil {
		return fmt.Errorf("cost line %q: %w", s, err)
	}
	if ps.fn == nil {
		return fmt.Errorf("cost line %q before any fn=", s)
	}
	f := ps.fn
	f.Self, f.Inclusive = grow(f.Self, len(ps.p.Events)), grow(f.Inclusive, len(ps.p.Events))
	if ps.inCall {
		ps.inCall = false
		recursive := ps.cfn == f.Name && (ps.cob == "" || ps.cob == f.Object)
		ps.cob, ps.cfi, ps.cfn = "", "", ""
		if !recursive {
			addTo(f.Inclusive, costs)
		}
		return nil
	}
	addTo(f.Self, costs)
	addTo(f.Inclusive, costs)
	ps.p.self = grow(ps.p.self, len(ps.p.Events))
	addTo(ps.p.self, costs)
	return nil
}

func grow(v []int64, n int) []int64 {
	if len(v) >= n {
		return v
	}
	return append(v, make([]int64, n-len(v))...)
}

func addTo(dst, costs []int64) {
	for i := 0; i < len(costs) && i < len(dst); i++ {
		dst[i] += costs[i]
	}
}

// parseInts parses decimal (or 0x hexadecimal) cost values.
func parseInts(fields []string) ([]int64, error) {
	v := make([]int64, len(fields))
	for i, f := range fields {
		base := 10
		if strings.HasPrefix(f, "0x") {
			f, base = f[2:], 16
		}
		n, err := strconv.ParseInt(f, base, 64)
		if err != nil {
			return nil, fmt.Errorf("bad number %q", fields[i])
		}
		v[i] = n
	}
	return v, nil
}
