package build

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

func TestParseStatus(t *testing.T) {
	tests := []struct {
		line        string
		ok          bool
		done, total int
		compile     bool
		link        string
	}{
		{"[3/742] Building CXX object storage/innobase/CMakeFiles/innobase.dir/row/row0sel.cc.o", true, 3, 742, true, ""},
		{"[741/742] Linking CXX executable sql/mariadbd", true, 741, 742, false, "mariadbd"},
		{"[10/20] Linking CXX static library storage/innobase/libinnobase.a", true, 10, 20, false, ""},
		{"[1/1] Linking C shared library libfoo.so", true, 1, 1, false, "libfoo.so"},
		{"[0/1] Re-running CMake...", true, 0, 1, false, ""},
		{"[5/4] Building C object x.o", false, 0, 0, false, ""},
		{"[a/4] Building C object x.o", false, 0, 0, false, ""},
		{"FAILED: CMakeFiles/toyd.dir/c.c.o", false, 0, 0, false, ""},
		{"c.c:2:14: error: expected expression before ';' token", false, 0, 0, false, ""},
		{"[3/7]", false, 0, 0, false, ""},
	}
	for _, tt := range tests {
		s, ok := parseStatus(tt.line)
		if ok != tt.ok || s.done != tt.done || s.total != tt.total || s.isCompile() != tt.compile || s.linkTarget() != tt.link {
			t.Errorf("parseStatus(%q) = %+v, %v (compile %v, link %q); want %d/%d %v, compile %v, link %q",
				tt.line, s, ok, s.isCompile(), s.linkTarget(), tt.done, tt.total, tt.ok, tt.compile, tt.link)
		}
	}
}

// fakeClock advances by step on every reading.
func fakeClock(step time.Duration) func() time.Time {
	t := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return func() time.Time { t = t.Add(step); return t }
}

// ninjaRun feeds n compile steps, a link of srv at the last but one, and
// a re-run of cmake first.
func ninjaRun(p *progress, n int) {
	p.ninjaLine("[0/1] Re-running CMake...")
	p.ninjaLine("-- Configuring done")
	for i := 1; i <= n; i++ {
		desc := fmt.Sprintf("Building C object obj%d.o", i)
		if i == n-1 {
			desc = "Linking C executable srv"
		}
		p.ninjaLine(fmt.Sprintf("[%d/%d] %s", i, n, desc))
	}
}

func TestProgressPlainLines(t *testing.T) {
	var out bytes.Buffer
	// One second per step: 400 steps take 400 s, so the 30 s rule and the
	// 10 % rule (every 40 steps) both matter.
	p := newProgressMode(&out, "abc", false, fakeClock(time.Second))
	ninjaRun(p, 400)
	p.phase("install into /x")
	if p.steps != 400 || p.compiled != 399 {
		t.Errorf("steps %d compiled %d, want 400 and 399", p.steps, p.compiled)
	}
	got := out.String()
	if strings.ContainsAny(got, "\r\x1b") {
		t.Errorf("plain output has a carriage return or an escape:\n%q", got)
	}
	for _, want := range []string{
		"build abc: configure (cmake re-run by ninja)\n",
		"build abc: compile 1/400 (0%), 0s\n",
		"build abc: compile 31/400 (7%), 30s\n",  // 30 s after the last line
		"build abc: compile 40/400 (10%), 39s\n", // the next 10 %
		"build abc: link srv\n",
		"build abc: compile 400/400 (100%), 6m39s\n",
		"build abc: install into /x\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("progress lacks %q:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "compile "); n < 11 || n > 30 {
		t.Errorf("%d compile lines for 400 steps, want between 11 and 30 (throttled):\n%s", n, got)
	}
}

func TestProgressTerminalLine(t *testing.T) {
	var out bytes.Buffer
	// 50 ms per step: the line is redrawn every other step (100 ms).
	p := newProgressMode(&out, "abc", true, fakeClock(50*time.Millisecond))
	ninjaRun(p, 40)
	p.phase("install into /x")
	got := out.String()
	lines := strings.Split(got, "\n")
	// configure, the status line (redrawn in place), install, "".
	if len(lines) != 4 {
		t.Fatalf("want 3 lines on the terminal, got %d:\n%q", len(lines)-1, got)
	}
	status := lines[1]
	if n := strings.Count(status, "\r"); n < 15 || n > 25 {
		t.Errorf("status line redrawn %d times for 40 steps at 50 ms, want about 20:\n%q", n, status)
	}
	draws := strings.Split(status, "\r")
	final := draws[len(draws)-1]
	if want := "build abc: [40/40] 100%, 2s  Building C object obj40.o\x1b[K"; final != want {
		t.Errorf("last drawing %q, want %q", final, want)
	}
	if !strings.Contains(status, "[1/40] 2%, 0s  Building C object obj1.o\x1b[K") {
		t.Errorf("status line lacks the first step:\n%q", status)
	}
	if lines[0] != "build abc: configure (cmake re-run by ninja)" || lines[2] != "build abc: install into /x" {
		t.Errorf("phase lines %q and %q", lines[0], lines[2])
	}
}

// A status line still on screen ends before the next phase line, and a
// long step description is cut.
func TestProgressTerminalEnds(t *testing.T) {
	var out bytes.Buffer
	p := newProgressMode(&out, "x", true, fakeClock(time.Second))
	p.ninjaLine("[1/9] Building CXX object " + strings.Repeat("storage/innobase/", 10) + "row0sel.cc.o")
	p.end()
	p.end() // nothing more
	p.phase("compile FAILED, log /l")
	got := out.String()
	if want := "\rbuild x: [1/9] 11%, 0s  Building CXX object storage/innobase/storage/innobase/stora…\x1b[K\nbuild x: compile FAILED, log /l\n"; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestIsTerminal(t *testing.T) {
	if isTerminal(&bytes.Buffer{}) {
		t.Error("a buffer is a terminal")
	}
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if isTerminal(f) {
		t.Errorf("%s is a terminal (it is a character device, not a tty)", os.DevNull)
	}
}
