package build

import (
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"
)

// ninjaStatus is NINJA_STATUS for every ninja run: "[finished/total] ".
// Without a terminal ninja prints a step's line when it finishes.
const ninjaStatus = "[%f/%t] "

// A status is one parsed ninja status line.
type status struct {
	done, total int
	desc        string // CMake's description: "Building C object a.c.o", ...
}

// parseStatus parses "[N/M] description"; ok is false for other lines
// (compiler output, FAILED: lines, commands).
func parseStatus(line string) (s status, ok bool) {
	if !strings.HasPrefix(line, "[") {
		return s, false
	}
	end := strings.Index(line, "] ")
	if end < 0 {
		return s, false
	}
	a, b, found := strings.Cut(line[1:end], "/")
	if !found {
		return s, false
	}
	n, err1 := strconv.Atoi(a)
	m, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil || n < 0 || m <= 0 || n > m {
		return s, false
	}
	return status{done: n, total: m, desc: line[end+2:]}, true
}

// isCompile reports whether a step description is a compilation.
func (s status) isCompile() bool { return strings.HasPrefix(s.desc, "Building ") }

// linkTarget returns the output name of a step linking an executable or
// a shared library, without its directory ("" for other steps, static
// libraries included).
func (s status) linkTarget() string {
	if !strings.HasPrefix(s.desc, "Linking ") {
		return ""
	}
	if !strings.Contains(s.desc, " executable ") && !strings.Contains(s.desc, " shared ") && !strings.Contains(s.desc, " module ") {
		return ""
	}
	f := strings.Fields(s.desc)
	return path.Base(f[len(f)-1])
}

// A progress reports one build's phases to a person: "configure",
// "compile N/M", "link X", "install". It counts the steps ninja ran.
type progress struct {
	w        io.Writer
	name     string
	lastPct  int
	steps    int // ninja steps finished
	compiled int // of which compilations
}

func newProgress(w io.Writer, name string) *progress {
	if w == nil {
		w = io.Discard
	}
	return &progress{w: w, name: name, lastPct: -1}
}

// phase prints one progress line.
func (p *progress) phase(format string, args ...any) {
	fmt.Fprintf(p.w, "build %s: %s\n", p.name, fmt.Sprintf(format, args...))
}

// ninjaLine digests one line of ninja's output: it counts steps and
// prints "compile N/M" when the percentage moves and "link X" for
// executables and shared libraries.
func (p *progress) ninjaLine(line string) {
	s, ok := parseStatus(line)
	if !ok {
		if strings.HasPrefix(line, "Re-running CMake") {
			p.phase("configure (cmake re-run by ninja)")
		}
		return
	}
	if strings.HasPrefix(s.desc, "Re-running CMake") {
		p.phase("configure (cmake re-run by ninja)")
		return
	}
	p.steps++
	if s.isCompile() {
		p.compiled++
	}
	if t := s.linkTarget(); t != "" {
		p.phase("link %s", t)
	}
	if pct := s.done * 100 / s.total; pct != p.lastPct {
		p.lastPct = pct
		p.phase("compile %d/%d (%d%%)", s.done, s.total, pct)
	}
}
