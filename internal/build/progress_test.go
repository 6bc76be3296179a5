package build

import (
	"bytes"
	"strings"
	"testing"
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

func TestProgressCounts(t *testing.T) {
	var out bytes.Buffer
	p := newProgress(&out, "abc")
	for _, line := range []string{
		"[0/1] Re-running CMake...",
		"-- Configuring done",
		"[1/400] Building C object a.o",
		"[2/400] Building C object b.o",
		"[3/400] Linking C executable srv",
		"[4/400] Generating version.h",
	} {
		p.ninjaLine(line)
	}
	if p.steps != 4 || p.compiled != 2 {
		t.Errorf("steps %d compiled %d, want 4 and 2", p.steps, p.compiled)
	}
	got := out.String()
	for _, want := range []string{"build abc: configure (cmake re-run by ninja)", "build abc: compile 1/400 (0%)", "build abc: link srv", "build abc: compile 4/400 (1%)"} {
		if !strings.Contains(got, want) {
			t.Errorf("progress lacks %q:\n%s", want, got)
		}
	}
	if strings.Count(got, "compile ") != 2 {
		t.Errorf("want one compile line per percent:\n%s", got)
	}
}
