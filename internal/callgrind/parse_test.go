package callgrind

import (
	"compress/gzip"
	"os"
	"reflect"
	"strings"
	"testing"
)

// small.callgrind is handwritten: name compression, a call with its inclusive
// cost, inlined code (fi=/fe=), relative positions, direct recursion, a
// callee in another object, and a cost line with a missing event.
func TestParseSmall(t *testing.T) {
	p, err := ParseFile("testdata/small.callgrind")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p.Events, []string{"Ir", "Dr"}) || p.PID != 42 || p.Cmd != "./server --flag" {
		t.Errorf("header: events %v pid %d cmd %q", p.Events, p.PID, p.Cmd)
	}
	if p.Total("Ir") != 800 || p.Total("Dr") != 62 || p.SelfSum("Ir") != 800 || p.SelfSum("Dr") != 62 {
		t.Errorf("totals Ir %d Dr %d, self sums %d %d; want 800 62 800 62",
			p.Total("Ir"), p.Total("Dr"), p.SelfSum("Ir"), p.SelfSum("Dr"))
	}
	if p.Total("Bc") != 0 {
		t.Errorf("an absent event has total %d", p.Total("Bc"))
	}
	want := map[string]Function{
		Key("main", "/opt/a/bin/server"):     {Name: "main", File: "main.c", Self: []int64{25, 2}, Inclusive: []int64{725, 62}},
		Key("work", "/opt/a/bin/server"):     {Name: "work", File: "util.c", Self: []int64{450, 30}, Inclusive: []int64{700, 60}, Calls: 3},
		Key("memcpy", "/lib/libc.so.6"):      {Name: "memcpy", File: "memcpy.S", Self: []int64{250, 30}, Inclusive: []int64{250, 30}, Calls: 4},
		Key("idle", "/opt/a/bin/server"):     {Name: "idle", File: "main.c", Self: []int64{75, 0}, Inclusive: []int64{75, 0}},
		"main [server]":                      {Name: "main", File: "main.c", Self: []int64{25, 2}, Inclusive: []int64{725, 62}},
		"memcpy [libc.so.6]":                 {Name: "memcpy", File: "memcpy.S", Self: []int64{250, 30}, Inclusive: []int64{250, 30}, Calls: 4},
		Key("work", "/elsewhere/bin/server"): {Name: "work", File: "util.c", Self: []int64{450, 30}, Inclusive: []int64{700, 60}, Calls: 3},
	}
	if len(p.Functions) != 4 {
		t.Errorf("%d functions, want 4", len(p.Functions))
	}
	for key, w := range want {
		f := p.Functions[key]
		if f == nil {
			t.Errorf("no function %q", key)
			continue
		}
		if f.Name != w.Name || f.File != w.File || f.Calls != w.Calls ||
			!reflect.DeepEqual(f.Self, w.Self) || !reflect.DeepEqual(f.Inclusive, w.Inclusive) {
			t.Errorf("%s: got %s %s self %v incl %v calls %d; want %s self %v incl %v calls %d", key,
				f.Name, f.File, f.Self, f.Inclusive, f.Calls, w.File, w.Self, w.Inclusive, w.Calls)
		}
	}
}

func TestParseRejects(t *testing.T) {
	for name, text := range map[string]string{
		"not a dump":          "hello world\n",
		"cost before fn":      "events: Ir\n0 5\n",
		"bad cost":            "events: Ir\nfn=f\n0 x5\n",
		"calls without count": "events: Ir\nfn=f\ncfn=g\ncalls=\n",
	} {
		if _, err := Parse(strings.NewReader(text)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// A real dump of Debian's mariadbd 10.11.19 (no debug information), 500
// text-protocol point selects between callgrind_control -z and -d: the
// self costs add up to its totals line, and the query path is there.
func TestParseRealDump(t *testing.T) {
	f, err := os.Open("testdata/textproto-10.11.19.out.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Parse(zr)
	if err != nil {
		t.Fatal(err)
	}
	if p.Total("Ir") != 31942231 || p.SelfSum("Ir") != p.Total("Ir") {
		t.Errorf("total %d, self sum %d; want 31942231 for both", p.Total("Ir"), p.SelfSum("Ir"))
	}
	exec := p.Functions[Key("mysql_execute_command(THD*, bool)", "/usr/sbin/mariadbd")]
	if exec == nil || exec.Calls != 500 || exec.Inclusive[0] != 21283278 || exec.Self[0] != 143000 {
		t.Fatalf("mysql_execute_command: %+v", exec)
	}
	for _, fn := range p.Functions {
		if len(fn.Inclusive) > 0 && fn.Inclusive[0] < fn.Self[0] {
			t.Errorf("%s: inclusive %d < self %d", fn.Name, fn.Inclusive[0], fn.Self[0])
		}
	}
}

// Instruction-level dumps (--dump-instr=yes, --collect-jumps=yes): two
// position columns, hexadecimal and relative (+n, -n, *) positions, and
// jump lines that carry no cost.
func TestParseInstrPositionsAndJumps(t *testing.T) {
	p, err := Parse(strings.NewReader(`positions: instr line
events: Ir
fn=(1) f
0x4005a0 12 5
+3 * 7
jump=2 +4 13
jcnd=1/2 -2 12
-2 +1 4
cfn=(2) g
calls=1 0x400600 20
+2 * 30
fn=(2)
0x400600 20 30
`))
	if err != nil {
		t.Fatal(err)
	}
	f, g := p.Functions["f"], p.Functions["g"]
	if f.Self[0] != 16 || f.Inclusive[0] != 46 || g.Self[0] != 30 || g.Calls != 1 || p.Total("Ir") != 46 {
		t.Errorf("f self %v incl %v, g self %v calls %d, total %d; want 16 46 30 1 46",
			f.Self, f.Inclusive, g.Self, g.Calls, p.Total("Ir"))
	}
}
