package build

import (
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/mattn/go-isatty"
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

// How often progress speaks: without a terminal one line per plainStep
// percent of the steps or per plainEvery, whichever comes first; on a
// terminal the status line is redrawn at most every ttyEvery (always for
// the last step), its description cut to ttyDesc runes.
const (
	plainStep  = 10
	plainEvery = 30 * time.Second
	ttyEvery   = 100 * time.Millisecond
	ttyDesc    = 60
)

// A progress reports one build's phases to a person: "configure",
// "compile", the compile steps, "link X", "install". On a terminal the
// compile steps are one line redrawn in place ("\r", ninja's [n/m], the
// percentage, the time compiling, the step); elsewhere they are plain
// lines, throttled. It counts the steps ninja ran.
type progress struct {
	w    io.Writer
	name string
	tty  bool             // redraw one line instead of printing many
	now  func() time.Time // the clock (tests fake it)

	start    time.Time // first ninja step seen
	lastAt   time.Time // last compile line printed or redrawn
	lastPct  int       // plain: the percentage last printed, -1 for none
	live     bool      // tty: a status line is on screen, unterminated
	steps    int       // ninja steps finished
	compiled int       // of which compilations
}

// newProgress returns a progress on w (nil: discarded), drawing one
// updating line when w is a terminal.
func newProgress(w io.Writer, name string) *progress {
	if w == nil {
		w = io.Discard
	}
	return newProgressMode(w, name, isTerminal(w), time.Now)
}

func newProgressMode(w io.Writer, name string, tty bool, now func() time.Time) *progress {
	return &progress{w: w, name: name, tty: tty, now: now, lastPct: -1}
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(interface{ Fd() uintptr })
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// phase prints one progress line, ending a status line on screen first.
func (p *progress) phase(format string, args ...any) {
	p.end()
	fmt.Fprintf(p.w, "build %s: %s\n", p.name, fmt.Sprintf(format, args...))
}

// end terminates the status line on a terminal, keeping its last state
// visible; without one on screen it does nothing.
func (p *progress) end() {
	if p.live {
		fmt.Fprint(p.w, "\n")
		p.live = false
	}
}

// ninjaLine digests one line of ninja's output: it counts steps and
// reports them (redrawn or throttled), and "link X" for executables and
// shared libraries.
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
	now := p.now()
	if p.start.IsZero() {
		p.start = now
	}
	p.steps++
	if s.isCompile() {
		p.compiled++
	}
	if p.tty {
		p.redraw(s, now)
		return
	}
	if t := s.linkTarget(); t != "" {
		p.phase("link %s", t)
	}
	p.plain(s, now)
}

// redraw rewrites the status line: "\r", the line, erase to its end.
func (p *progress) redraw(s status, now time.Time) {
	last := s.done == s.total
	if p.live && !last && now.Sub(p.lastAt) < ttyEvery {
		return
	}
	desc := s.desc
	if t := s.linkTarget(); t != "" {
		desc = "link " + t
	}
	fmt.Fprintf(p.w, "\rbuild %s: [%d/%d] %d%%, %s  %s\x1b[K", p.name, s.done, s.total,
		s.done*100/s.total, p.elapsed(now), cut(desc, ttyDesc))
	p.live, p.lastAt = true, now
	if last {
		p.end()
	}
}

// plain prints "compile N/M (P%), T" when the percentage passed a
// multiple of plainStep, plainEvery went by, or at the last step.
func (p *progress) plain(s status, now time.Time) {
	pct := s.done * 100 / s.total
	due := p.lastPct < 0 || pct/plainStep > p.lastPct/plainStep ||
		now.Sub(p.lastAt) >= plainEvery || (s.done == s.total && pct != p.lastPct)
	if !due {
		return
	}
	p.lastPct, p.lastAt = pct, now
	p.phase("compile %d/%d (%d%%), %s", s.done, s.total, pct, p.elapsed(now))
}

// elapsed is the time since the first ninja step, in whole seconds.
func (p *progress) elapsed(now time.Time) string {
	return now.Sub(p.start).Round(time.Second).String()
}

// cut shortens s to n runes, the last an ellipsis.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
