package scenario

import (
	"strings"
	"testing"
)

const tiny = `{"name": "tiny", "description": "a test", "noise_cv": 0.003,
 "workload": {"tables": 8, "table_size": 10000, "threads": 16},
 "commits": [
  {"id": "a", "subject": "root", "tags": ["mariadb-1.0.0"], "knobs": {"ahi": "on", "refcount_fix": false, "tps_factor": 1.0}},
  {"id": "b", "subject": "main change"},
  {"id": "c", "parents": ["a"], "subject": "side fix", "knobs": {"refcount_fix": true}},
  {"id": "m", "parents": ["b", "c"], "subject": "Merge side"},
  {"id": "p", "parents": ["a"], "subject": "pick the fix", "cherry_pick": "c", "branches": ["old"]},
  {"id": "d", "parents": ["m"], "subject": "drop tps_factor", "knobs": {"tps_factor": null}, "tags": ["mariadb-1.1.0"], "branches": ["main"]}
 ]}`

func TestParseTiny(t *testing.T) {
	s, err := Parse([]byte(tiny))
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "tiny" || s.NoiseCV != 0.003 || s.Workload.Threads != 16 || len(s.Commits) != 6 {
		t.Errorf("parsed %+v", s.Header)
	}
	if v := s.Commits[0].Knobs["tps_factor"]; v == nil || *v != "1.0" {
		t.Errorf("tps_factor kept as %v, want the literal 1.0", v)
	}
	if v, ok := s.Commits[5].Knobs["tps_factor"]; !ok || v != nil {
		t.Errorf("null knob = %v, %v; want present and nil", v, ok)
	}
	// JSON round trip.
	b, err := s.JSON()
	if err != nil {
		t.Fatal(err)
	}
	s2, err := Parse(b)
	if err != nil {
		t.Fatalf("re-parsing %s: %v", b, err)
	}
	b2, _ := s2.JSON()
	if string(b) != string(b2) {
		t.Errorf("round trip differs:\n%s\n%s", b, b2)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, json string
		wantAll    []string
	}{
		{"syntax", `{"name": "x",, }`, []string{"line 1, column"}},
		{"unknown field", `{"name": "x", "knob": {}}`, []string{`unknown field "knob"`}},
		{"trailing", `{"name":"x","noise_cv":0,"workload":{"tables":1,"table_size":1,"threads":1},"commits":[{"id":"a","subject":"s"}]} {}`, []string{"trailing data"}},
		{"header", `{"name": "Bad Name", "noise_cv": 0.7, "workload": {"tables": 0, "table_size": 1, "threads": 1}, "commits": []}`,
			[]string{`name "Bad Name"`, "noise_cv 0.7", "workload", "no commits"}},
		{"commits", `{"name": "x", "noise_cv": 0, "workload": {"tables": 1, "table_size": 1, "threads": 1}, "commits": [
			{"id": "a", "subject": "root", "parents": ["z"]},
			{"id": "a", "subject": ""},
			{"id": "b c", "subject": "s", "parents": ["q", "a", "a"], "tags": ["bad tag", "v1"]},
			{"id": "d", "subject": "s", "tags": ["v1"], "knobs": {"Bad-Key": "1", "x": "two\nlines"}},
			{"id": "e", "subject": "s", "cherry_pick": "nope"},
			{"id": "f", "subject": "s", "cherry_pick": "a", "knobs": {"ahi": "on"}}
		]}`, []string{
			`commit 1 ("a"): the first commit is the root`,
			`commit 1 ("a"): parent "z" is not an earlier commit`,
			`commit 2 ("a"): id "a" already used by commit 1`,
			`commit 2 ("a"): subject must be one non-empty line`,
			`commit 3 ("b c"): id "b c"`,
			`commit 3 ("b c"): parent "q" is not an earlier commit`,
			`commit 3 ("b c"): parent "a" listed twice`,
			`commit 3 ("b c"): tag "bad tag" is not a valid git ref name`,
			`commit 4 ("d"): tag "v1" already on commit "b c"`,
			`commit 4 ("d"): knob "Bad-Key"`,
			`commit 4 ("d"): knob x: the value must be one line`,
			`commit 5 ("e"): cherry_pick "nope" is not an earlier commit`,
			`commit 6 ("f"): cherry_pick and knobs are exclusive`,
		}},
		{"knob value type", `{"name": "x", "noise_cv": 0, "workload": {"tables": 1, "table_size": 1, "threads": 1}, "commits": [
			{"id": "a", "subject": "s", "knobs": {"ahi": ["on"]}}]}`, []string{"knob ahi: value", "not a string, boolean, number or null"}},
		{"pick a merge", `{"name": "x", "noise_cv": 0, "workload": {"tables": 1, "table_size": 1, "threads": 1}, "commits": [
			{"id": "a", "subject": "s"}, {"id": "b", "subject": "s"}, {"id": "c", "parents": ["a"], "subject": "s"},
			{"id": "m", "parents": ["b", "c"], "subject": "merge"}, {"id": "p", "parents": ["a"], "subject": "s", "cherry_pick": "m"}]}`,
			[]string{`cherry_pick "m" is a merge`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.json))
			if err == nil {
				t.Fatal("Parse succeeded")
			}
			for _, w := range tt.wantAll {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not contain %q:\n%v", w, err)
				}
			}
		})
	}
}

func TestValidRefName(t *testing.T) {
	for name, want := range map[string]bool{
		"mariadb-11.8.6": true, "12.0": true, "feature/x": true,
		"": false, "a b": false, "a..b": false, "a~1": false, "a^": false, "x.lock": false,
		"-x": false, "x/": false, ".x": false, "a/.b": false, "a@{1}": false,
	} {
		if got := validRefName(name); got != want {
			t.Errorf("validRefName(%q) = %v, want %v", name, got, want)
		}
	}
}
