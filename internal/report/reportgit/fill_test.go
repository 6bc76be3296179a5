package reportgit

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/perfbisect/perfbisect/internal/bisect"
	"github.com/perfbisect/perfbisect/internal/repo"
	"github.com/perfbisect/perfbisect/internal/report"
	"github.com/perfbisect/perfbisect/internal/scenario"
)

// mdevRepo materialises the built-in MDEV scenario: 12.0 branched at
// 11.8.1, the AHI fixup on 11.8 only.
func mdevRepo(t *testing.T) *repo.Repo {
	t.Helper()
	ctx := context.Background()
	sc, err := scenario.Load("mdev-12.0-point-select")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "mdev")
	if _, err := scenario.Materialize(ctx, sc, dir); err != nil {
		t.Fatal(err)
	}
	r, err := repo.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func resolve(t *testing.T, r *repo.Repo, rev string) bisect.Commit {
	t.Helper()
	c, err := r.Resolve(context.Background(), rev)
	if err != nil {
		t.Fatal(err)
	}
	return bisect.Commit{Hash: c.Hash, Short: c.Short, Subject: c.Subject}
}

func measured(c bisect.Commit, mean float64) bisect.Measured {
	return bisect.Measured{Commit: c, Samples: []float64{mean - 500, mean, mean + 500}, Mean: mean}
}

func TestFillFromTheMDEVScenario(t *testing.T) {
	ctx := context.Background()
	r := mdevRepo(t)
	good, bad, rel120 := resolve(t, r, "11.8.6"), resolve(t, r, "12.0.1"), resolve(t, r, "12.0.0")
	mbc, err := r.MergeBase(ctx, good.Hash, bad.Hash)
	if err != nil {
		t.Fatal(err)
	}
	mb := bisect.Commit{Hash: mbc.Hash, Short: mbc.Short, Subject: mbc.Subject}
	goodSide, err := r.Range(ctx, mb.Hash, good.Hash, repo.RangeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var fix, parent bisect.Commit
	for i, c := range goodSide {
		if strings.Contains(c.Subject, "AHI fixup") {
			fix = bisect.Commit{Hash: c.Hash, Short: c.Short, Subject: c.Subject}
			parent = bisect.Commit{Hash: goodSide[i-1].Hash, Short: goodSide[i-1].Short, Subject: goodSide[i-1].Subject}
		}
	}
	if fix.Hash == "" {
		t.Fatal("no AHI fixup on the 11.8 side of the scenario")
	}
	in := report.Input{
		Request: report.Request{Good: "11.8.6", Bad: "12.0.1", DryRun: true},
		Result: bisect.Result{Status: bisect.StatusFound, Good: good, Bad: bad, MergeBase: &mb, MergeBaseLike: "bad",
			Regression: true, Config: bisect.DefaultConfig,
			Endpoints: bisect.Change{OldMean: 381100, NewMean: 378800, OldRuns: 3, NewRuns: 3, Delta: -0.006},
			Culprits:  []bisect.Culprit{{Commit: fix, Parent: parent, Branch: bisect.BranchGood, CheckedBadBranch: true}},
			// Measured out of history order, as the engine measures.
			Commits: []bisect.Measured{measured(good, 381100), measured(bad, 378800), measured(mb, 378900),
				measured(fix, 381100), measured(rel120, 378950), measured(parent, 378850)}},
	}
	if err := Fill(ctx, r, &in); err != nil {
		t.Fatal(err)
	}
	checkHistory(t, in, goodSide)
	d := detailsOf(in, fix.Hash)
	if d == nil || d.Author == "" || d.Date.IsZero() || len(d.Files) == 0 {
		t.Errorf("culprit details: %+v", d)
	}
	if d := detailsOf(in, good.Hash); d == nil || len(d.Tags) == 0 || d.Tags[0] != "mariadb-11.8.6" {
		t.Errorf("good's details: %+v", d)
	}
	if in.Branches != (report.Branches{Good: "11.8", Bad: "12.0", BaseName: "11.8.1"}) {
		t.Errorf("branches %+v", in.Branches)
	}
	// The seed: 11.8.x from the fix on has it; 12.0.0 and 12.0.1 lack it.
	var with, without []string
	for _, rel := range in.Releases {
		if rel.Culprit != fix.Hash {
			t.Errorf("release %+v is not about the culprit", rel)
		}
		if rel.Has {
			with = append(with, rel.Tag)
		} else {
			without = append(without, rel.Tag)
		}
	}
	if !slices.Contains(with, "11.8.6") || slices.Contains(with, "11.8.1") || !slices.Contains(without, "12.0.0") ||
		!slices.Contains(without, "12.0.1") || slices.Contains(with, "12.0.1") {
		t.Errorf("releases with the fix %v, without %v", with, without)
	}
	if d.Diff == "" || !strings.Contains(d.Diff, "@@") {
		t.Errorf("culprit's diff excerpt %q", d.Diff)
	}
	var labels []string
	for _, p := range in.NetEffect {
		labels = append(labels, p.Label)
	}
	if got := strings.Join(labels, " "); got != "11.8.6 12.0.1 11.8.1 12.0.0" {
		t.Errorf("net-effect points %q", got)
	}
	var md bytes.Buffer
	if err := report.Markdown(&md, in, report.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"`11.8.6 > 12.0.0 ≈ 11.8.1 ≈ 12.0.1`", "In history order (merge base, then the good side",
		"11.8 gained a change that 12.0 lacks"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

// checkHistory: the merge base, then exactly the good side, then the bad side.
func checkHistory(t *testing.T, in report.Input, goodSide []repo.Commit) {
	t.Helper()
	h := in.History
	if len(h) < len(goodSide)+2 || h[0].Side != report.SideBase || h[0].Hash != in.Result.MergeBase.Hash {
		t.Fatalf("history starts %+v", h[:min(len(h), 2)])
	}
	for i, c := range goodSide {
		if h[1+i].Hash != c.Hash || h[1+i].Side != report.SideGood {
			t.Fatalf("history[%d] = %+v, want %s on the good side", 1+i, h[1+i], c.Short)
		}
	}
	rest := h[1+len(goodSide):]
	if rest[len(rest)-1].Hash != in.Result.Bad.Hash {
		t.Error("history does not end at bad")
	}
	for _, e := range rest {
		if e.Side != report.SideBad {
			t.Fatalf("bad side entry %+v", e)
		}
	}
}

func detailsOf(in report.Input, hash string) *report.CommitDetails {
	for i := range in.Details {
		if in.Details[i].Hash == hash {
			return &in.Details[i]
		}
	}
	return nil
}
