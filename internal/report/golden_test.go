package report

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// goldenCases are the testdata/<case>.json inputs with <case>.md expected.
var goldenCases = []string{
	"seed",         // improvement on 11.8 missing from 12.0 (non-ancestor good)
	"regression",   // one culprit on a straight line
	"two-culprits", // two steps, dry run with calibration
	"not-reproduced",
	"skipped",      // unbuildable, crashed and ambiguous commits stepped around
	"inconclusive", // skipped commits leave candidates; one candidate rejected
	"mdev-dry-run", // the real dry run of --good 11.8.6 --bad 12.0.1, filled by reportgit.Fill
	"same-binary",  // regression, with a test-only commit sharing the culprit's binary and runs
	"instructions", // an instructions bisect: more instructions per query is the regression
	"gradual",      // two verified steps grouped as one gradual change; build variance limits the answer
	"outliers",     // an outlier excluded and replaced, reused runs, an identical binary, build variance
	// an instructions bisect whose counts did not differ, while
	// throughput did: the TPS check points at contention, layout or I/O
	"instructions-same",
}

func loadCase(t *testing.T, name string) Input {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	in, err := Load(doc)
	if err != nil {
		t.Fatalf("%s.json: %v", name, err)
	}
	return in
}

func TestGoldenMarkdown(t *testing.T) {
	for _, name := range goldenCases {
		t.Run(name, func(t *testing.T) {
			in := loadCase(t, name)
			var got bytes.Buffer
			if err := Markdown(&got, in, Options{}); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, filepath.Join("testdata", name+".md"), got.Bytes())
			// Deterministic: a second rendering is byte-identical.
			var again bytes.Buffer
			if err := Markdown(&again, in, Options{}); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), again.Bytes()) {
				t.Error("two renderings of the same input differ")
			}
		})
	}
}

// checkGolden compares got with the golden file; -update rewrites it. On a
// mismatch it writes got beside it as <file>.got (git-ignored) and prints
// a diff.
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	gotPath := path + ".got"
	if bytes.Equal(want, got) {
		os.Remove(gotPath)
		return
	}
	if err := os.WriteFile(gotPath, got, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Errorf("%s differs from the golden file; got written to %s (go test -update accepts it):\n%s",
		path, gotPath, diff(path, gotPath, want, got))
}

// diff is `diff -u` when available, else the first differing line.
func diff(wantPath, gotPath string, want, got []byte) string {
	if out, _ := exec.Command("diff", "-u", wantPath, gotPath).CombinedOutput(); len(out) > 0 {
		return string(out)
	}
	wl, gl := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + strconv.Itoa(i+1) + ":\n- " + w + "\n+ " + g
		}
	}
	return "(files differ)"
}
