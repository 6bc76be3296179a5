package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/perfbisect/perfbisect/internal/bisect"
)

// The first lines give the runs each endpoint really has, not the
// endpoint test's: in the mdev dry run the endpoints were measured again
// (20 runs each) after the test decided on 10 + 10. The levels are the
// medians of all 20 runs (python3 statistics.median of the case's samples).
func TestEndpointRunsAreTheMeasuredOnes(t *testing.T) {
	rep, err := Build(loadCase(t, "mdev-dry-run"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	first := rep.Summary[0]
	for _, want := range []string{"Median throughput fell from 381,138.4 TPS on 11.8.6", "377,499.3 TPS on 12.0.1", "(20 + 20 runs;", "endpoint test on the first 10 + 10: -0.77 %"} {
		if !strings.Contains(first, want) {
			t.Errorf("first line lacks %q:\n%s", want, first)
		}
	}
	if strings.Contains(first, "; 10 + 10 runs)") {
		t.Errorf("first line gives the test's run count as the endpoints':\n%s", first)
	}
	if want := "(medians of 20 and 20 runs)"; !strings.Contains(rep.Observed[0], want) {
		t.Errorf("observed %q lacks %q", rep.Observed[0], want)
	}
	if !strings.Contains(rep.Title, "0.95 % slower") {
		t.Errorf("title %q: want the change of the medians of all runs, 0.95 %%", rep.Title)
	}

	// Six more runs of good: 36 + 20, the test's 30 + 20 named apart.
	in := loadCase(t, "regression")
	for i, m := range in.Result.Commits {
		if m.Commit.Hash == in.Result.Good.Hash {
			m.Samples = append(append([]float64(nil), m.Samples...), 381000, 381000, 381000, 381000, 381000, 381000)
			in.Result.Commits[i] = m
		}
	}
	rep, err = Build(in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "(36 + 20 runs; the endpoint test on the first 30 + 20:"; !strings.Contains(rep.Summary[0], want) {
		t.Errorf("first line lacks %q:\n%s", want, rep.Summary[0])
	}
}

// A commit whose binary is identical to another's says it shares that
// binary's runs.
func TestSameBinaryIsMarked(t *testing.T) {
	in := loadCase(t, "same-binary")
	rep, err := Build(in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, o := range rep.Observations {
		switch o.Short {
		case "8e5f0a2b3c7":
			found = true
			if o.SameBinaryAs != "6c3d8e1f2a4" || !strings.Contains(o.Note, "same binary as 6c3d8e1f2a4: shared runs") {
				t.Errorf("observation %s: same binary as %q, note %q", o.Short, o.SameBinaryAs, o.Note)
			}
		default:
			if o.SameBinaryAs != "" || strings.Contains(o.Note, "same binary") {
				t.Errorf("observation %s marked as sharing a binary: %q", o.Short, o.Note)
			}
		}
	}
	if !found {
		t.Fatal("no observation of 8e5f0a2b3c7")
	}
	var md bytes.Buffer
	if err := rep.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| same binary as 6c3d8e1f2a4: shared runs |") {
		t.Errorf("the Markdown does not say the runs are shared:\n%s", md.String())
	}
	in.Details[len(in.Details)-1].SameBinaryAs = in.Details[len(in.Details)-1].Hash
	if _, err := Build(in, Options{}); err == nil || !strings.Contains(err.Error(), "same binary as itself") {
		t.Errorf("a commit sharing its own binary: error %v", err)
	}
}

func TestMarkSameBinaries(t *testing.T) {
	c := func(h string) bisect.Measured { return bisect.Measured{Commit: bisect.Commit{Hash: h}} }
	in := Input{Details: []CommitDetails{{Hash: "cc", Author: "Ann"}}}
	in.Result.Commits = []bisect.Measured{c("aa"), c("bb"), c("cc"), c("dd"), c("ee")}
	in.MarkSameBinaries(map[string]string{"aa": "x", "bb": "y", "cc": "x", "dd": "", "ee": "y"})
	got := map[string]CommitDetails{}
	for _, d := range in.Details {
		got[d.Hash] = d
	}
	want := map[string]string{"aa": "", "bb": "", "cc": "aa", "dd": "", "ee": "bb"}
	for h, w := range want {
		if got[h].SameBinaryAs != w {
			t.Errorf("%s: same binary as %q, want %q", h, got[h].SameBinaryAs, w)
		}
	}
	if got["cc"].Author != "Ann" || len(in.Details) != 2 {
		t.Errorf("details %+v: want cc kept (with its author) and ee added", in.Details)
	}
}

// A person reads GOOD/BAD and "like-good"-style words, never the engine's
// like-low/like-high (low means the older end, not the slow one).
func TestNoEngineVerdictWords(t *testing.T) {
	for _, name := range goldenCases {
		in := loadCase(t, name)
		var md, js bytes.Buffer
		if err := Markdown(&md, in, Options{}); err != nil {
			t.Fatal(err)
		}
		if err := JSON(&js, in, Options{}); err != nil {
			t.Fatal(err)
		}
		for _, out := range []string{md.String(), js.String()} {
			if strings.Contains(out, "like-low") || strings.Contains(out, "like-high") {
				t.Errorf("%s: the report says like-low or like-high", name)
			}
		}
	}
	m := bisect.Measured{Verdicts: []bisect.Verdict{bisect.VerdictAmbiguous, bisect.VerdictLikeLow}}
	if got := skipNote(bisect.Skip{}, m); got != "skipped: ambiguous" {
		t.Errorf("skip note %q, want %q", got, "skipped: ambiguous")
	}
}
