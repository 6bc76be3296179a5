package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"strings"
	"testing"
)

func TestWebURLFromRemote(t *testing.T) {
	for _, tc := range []struct{ remote, want string }{
		{"git@github.com:MariaDB/server.git", "https://github.com/MariaDB/server"},
		{"https://github.com/MariaDB/server.git", "https://github.com/MariaDB/server"},
		{"https://github.com/MariaDB/server", "https://github.com/MariaDB/server"},
		{"https://user:secret@github.com/MariaDB/server.git", "https://github.com/MariaDB/server"},
		{"ssh://git@github.com/MariaDB/server.git", "https://github.com/MariaDB/server"},
		{"https://gitlab.com/MariaDB/server.git", ""},
		{"/srv/git/server", ""},
		{"https://github.com/MariaDB", ""},
		{"", ""},
	} {
		if got := WebURLFromRemote(tc.remote); got != tc.want {
			t.Errorf("WebURLFromRemote(%q) = %q, want %q", tc.remote, got, tc.want)
		}
	}
}

func TestWebURLOverride(t *testing.T) {
	in := loadCase(t, "seed") // remote on github.com
	var md bytes.Buffer
	if err := Markdown(&md, in, Options{WebURL: "https://git.example.org/server/"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "(https://git.example.org/server/commit/83a48d2bc84") ||
		strings.Contains(md.String(), "github.com/MariaDB") {
		t.Error("--web-url did not replace the links derived from the remote")
	}
	in.Request.RemoteURL = ""
	md.Reset()
	if err := Markdown(&md, in, Options{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(md.String(), "](http") {
		t.Error("links rendered without any repository URL")
	}
}

func TestMedianCI(t *testing.T) {
	seq := func(n int) []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = float64((i*7)%n + 1) // 1..n, shuffled
		}
		return s
	}
	for _, tc := range []struct {
		n              int
		median, lo, hi float64
		ok             bool
	}{
		{1, 1, 0, 0, false},
		{5, 3, 0, 0, false},     // best interval [min, max] covers 93.75 %
		{6, 3.5, 1, 6, true},    // [min, max] covers 96.9 %
		{20, 10.5, 6, 15, true}, // [x(6), x(15)] covers 95.9 %; [x(7), x(14)] only 88.5 %
	} {
		m, lo, hi, ok := medianCI(seq(tc.n))
		if m != tc.median || lo != tc.lo || hi != tc.hi || ok != tc.ok {
			t.Errorf("n=%d: median %v [%v, %v] %v, want %v [%v, %v] %v", tc.n, m, lo, hi, ok, tc.median, tc.lo, tc.hi, tc.ok)
		}
	}
}

func TestJSONCarriesTheMarkdownContent(t *testing.T) {
	for _, name := range goldenCases {
		in := loadCase(t, name)
		var js, md bytes.Buffer
		if err := JSON(&js, in, Options{}); err != nil {
			t.Fatal(err)
		}
		if err := Markdown(&md, in, Options{}); err != nil {
			t.Fatal(err)
		}
		var rep Report
		if err := json.Unmarshal(js.Bytes(), &rep); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if first, _, _ := strings.Cut(md.String(), "\n"); first != "# "+rep.Title {
			t.Errorf("%s: Markdown title %q, JSON title %q", name, first, rep.Title)
		}
		if len(rep.Observations) != len(in.Result.Commits) || len(rep.Summary) != 2 {
			t.Errorf("%s: %d observations for %d commits, %d summary lines", name, len(rep.Observations), len(in.Result.Commits), len(rep.Summary))
		}
	}
}

func TestSVGIsWellFormed(t *testing.T) {
	for _, name := range goldenCases {
		in := loadCase(t, name)
		var a, b bytes.Buffer
		if err := SVG(&a, in, Options{}); err != nil {
			t.Fatal(err)
		}
		if err := SVG(&b, in, Options{}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("%s: SVG not deterministic", name)
		}
		circles, rings, polylines, measured := 0, 0, 0, 0
		dec := xml.NewDecoder(bytes.NewReader(a.Bytes()))
		for {
			tok, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: SVG is not well-formed XML: %v", name, err)
			}
			se, ok := tok.(xml.StartElement)
			switch {
			case ok && se.Name.Local == "circle" && attr(se, "fill") == "none":
				rings++ // the mark around a culprit
			case ok && se.Name.Local == "circle":
				circles++
			case ok && se.Name.Local == "polyline":
				polylines++
			}
		}
		for _, m := range in.Result.Commits {
			if len(m.Samples) > 0 {
				measured++
			}
		}
		if circles != measured+4 { // one per commit with samples, four in the legend
			t.Errorf("%s: %d circles, want %d", name, circles, measured+4)
		}
		if culprits := len(in.Result.Culprits); rings != culprits {
			t.Errorf("%s: %d culprit marks, want %d", name, rings, culprits)
		}
		// A non-ancestor bisect draws two lines from the merge base (one
		// per branch), never one line across both branches.
		if want := 1; in.Result.MergeBase != nil && polylines != 2 || in.Result.MergeBase == nil && measured > 1 && polylines != want {
			t.Errorf("%s: %d lines (merge base %v)", name, polylines, in.Result.MergeBase != nil)
		}
	}
}

func TestMarkdownMentionsWhatTheIssueRequires(t *testing.T) {
	in := loadCase(t, "seed")
	var md bytes.Buffer
	if err := Markdown(&md, in, Options{SVGPath: "chart.svg"}); err != nil {
		t.Fatal(err)
	}
	s := md.String()
	order := []string{"# oltp_point_select: 12.0.1 is", "**Affected versions:**", "## Benchmark configuration",
		"## Observed behaviour", "## Expected behaviour", "## Technical analysis", "storage/innobase/buf/buf0buf.cc | 2 ++",
		"### Branch context", "## Commit-level observations", "```mermaid\n%%{init:", "xychart-beta", "![Median TPS per measured commit](chart.svg)",
		"## Net effect", "`11.8.6 > 12.0.0 ≈ 12.0.1`"}
	at := 0
	for _, want := range order {
		i := strings.Index(s[at:], want)
		if i < 0 {
			t.Fatalf("%q missing or out of order", want)
		}
		at += i
	}
	if strings.Contains(s, "Model-based") {
		t.Error("a real bisect's report claims to be model-based")
	}
}

func attr(se xml.StartElement, name string) string {
	for _, a := range se.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// TestHostsOfAFleetBisect: the runs each fleet host took are listed with
// the benchmark configuration, in Markdown and in Jira; a bisect on this
// machine lists none.
func TestHostsOfAFleetBisect(t *testing.T) {
	in := loadCase(t, "seed")
	var plain bytes.Buffer
	if err := Markdown(&plain, in, Options{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "hosts") {
		t.Error("a bisect on one machine lists hosts")
	}
	in.Benchmark.Hosts = []HostRuns{{Host: "bench-1", Runs: 202}, {Host: "bench-2", Runs: 223}}
	for name, render := range map[string]func(*bytes.Buffer) error{
		"markdown": func(b *bytes.Buffer) error { return Markdown(b, in, Options{}) },
		"jira":     func(b *bytes.Buffer) error { return Jira(b, in, Options{}) },
	} {
		var b bytes.Buffer
		if err := render(&b); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "bench-1 (202 runs), bench-2 (223 runs)") {
			t.Errorf("%s: no hosts line in the benchmark configuration", name)
		}
	}
	in.Benchmark.Hosts = []HostRuns{{Host: "bench-1", Runs: 202, Speed: 1.0312}, {Host: "bench-2", Runs: 223, Speed: 1}}
	var b bytes.Buffer
	if err := Markdown(&b, in, Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "bench-1 (202 runs, speed ×1.031), bench-2 (223 runs, speed ×1.000), each run divided by its host's speed") {
		t.Errorf("hosts with speeds: not in the report:\n%s", b.String())
	}
}
