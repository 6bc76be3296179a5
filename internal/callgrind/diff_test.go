package callgrind

import (
	"math"
	"strings"
	"testing"
)

const before = `events: Ir
ob=/a/bin/server
fl=main.c
fn=main
0 100
cfn=work
calls=1000 0
0 40000
fl=util.c
fn=work
0 40000
totals: 40100
`

// after: twice the queries; work does 10 more instructions a query, of
// which 6 in a new helper and 4 of its own.
const after = `events: Ir
ob=/b/bin/server
fl=main.c
fn=main
0 200
cfn=work
calls=2000 0
0 100000
fl=util.c
fn=work
0 88000
cfn=helper
calls=2000 0
0 12000
fl=helper.c
fn=helper
0 12000
totals: 100200
`

func parseString(t *testing.T, s string) *Profile {
	t.Helper()
	p, err := Parse(strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCompareNormalisesPerQuery(t *testing.T) {
	b, a := parseString(t, before), parseString(t, after)
	d := Compare(Side{b, 1000}, Side{a, 2000}, "Ir", 0, 0.5)
	if d.Before != 40.1 || d.After != 50.1 || math.Abs(d.Delta-10) > 1e-9 {
		t.Errorf("totals per query %g -> %g (%+g), want 40.1 -> 50.1 (+10)", d.Before, d.After, d.Delta)
	}
	wantSelf := []FuncDelta{
		{Name: "helper", File: "helper.c", Before: 0, After: 6, Delta: 6, Share: 0.6},
		{Name: "work", File: "util.c", Before: 40, After: 44, Delta: 4, Share: 0.4},
	}
	if len(d.Self) != len(wantSelf) {
		t.Fatalf("self: %+v", d.Self)
	}
	for i, w := range wantSelf {
		g := d.Self[i]
		if g.Name != w.Name || g.File != w.File || math.Abs(g.Delta-w.Delta) > 1e-9 ||
			math.Abs(g.Share-w.Share) > 1e-9 || g.Before != w.Before || g.After != w.After {
			t.Errorf("self[%d] = %+v, want %+v", i, g, w)
		}
	}
	// main's self cost per query is unchanged (0.1). Inclusive: main and
	// work hold over 99 % of both totals (left out), helper grew by 6.
	if len(d.Inclusive) != 1 || d.Inclusive[0].Name != "helper" || d.Inclusive[0].Delta != 6 {
		t.Errorf("inclusive: %+v", d.Inclusive)
	}
	if top := Compare(Side{b, 1000}, Side{a, 2000}, "Ir", 1, 0); len(top.Self) != 1 || top.Self[0].Name != "helper" {
		t.Errorf("top 1: %+v", top.Self)
	}
	if none := Compare(Side{b, 1000}, Side{b, 1000}, "Ir", 0, 0); none.Delta != 0 || len(none.Self)+len(none.Inclusive) != 0 {
		t.Errorf("a profile against itself: %+v", none)
	}
}

func TestSumAddsProfiles(t *testing.T) {
	a := parseString(t, before)
	s := Sum(a, a, a)
	if s.Total("Ir") != 3*40100 || s.SelfSum("Ir") != 3*40100 {
		t.Errorf("sum of three: total %d self %d", s.Total("Ir"), s.SelfSum("Ir"))
	}
	w := s.Functions[Key("work", "/a/bin/server")]
	if w.Self[0] != 120000 || w.Calls != 3000 {
		t.Errorf("work in the sum: %+v", w)
	}
	// Three samples of 1000 queries against one: the same per query.
	if d := Compare(Side{a, 1000}, Side{s, 3000}, "Ir", 0, 0.01); d.Delta != 0 || len(d.Self) != 0 {
		t.Errorf("sum vs one, per query: %+v", d)
	}
	if a.Total("Ir") != 40100 {
		t.Error("Sum changed its input")
	}
}

func TestTrimFiles(t *testing.T) {
	d := Diff{Self: []FuncDelta{{File: "/w/src/storage/row0sel.cc"}, {File: "./string/strcmp.S"}},
		Inclusive: []FuncDelta{{File: "/w/src/sql/sql_prepare.cc"}}}
	d.TrimFiles("/w/src/")
	if d.Self[0].File != "storage/row0sel.cc" || d.Self[1].File != "./string/strcmp.S" || d.Inclusive[0].File != "sql/sql_prepare.cc" {
		t.Errorf("files %q %q %q", d.Self[0].File, d.Self[1].File, d.Inclusive[0].File)
	}
}
