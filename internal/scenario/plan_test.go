package scenario

import (
	"maps"
	"strings"
	"testing"
)

func mustParse(t *testing.T, js string) *Scenario {
	t.Helper()
	s, err := Parse([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestStatesKnobs(t *testing.T) {
	states, err := mustParse(t, tiny).States()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]string{
		"a": {"ahi": "on", "refcount_fix": "false", "tps_factor": "1.0"},
		"b": {"ahi": "on", "refcount_fix": "false", "tps_factor": "1.0"},
		"c": {"ahi": "on", "refcount_fix": "true", "tps_factor": "1.0"},
		"m": {"ahi": "on", "refcount_fix": "true", "tps_factor": "1.0"}, // the merge brings c's change
		"p": {"ahi": "on", "refcount_fix": "true", "tps_factor": "1.0"}, // the pick re-applies it
		"d": {"ahi": "on", "refcount_fix": "true"},                      // null removes
	}
	for _, st := range states {
		if !maps.Equal(st.Knobs, want[st.ID]) {
			t.Errorf("%s: knobs %v, want %v", st.ID, st.Knobs, want[st.ID])
		}
	}
	// The merge has both sides' change records; the pick has c's record, not its own.
	m, p := states[3].Files(), states[4].Files()
	for _, f := range []string{ChangePath("b"), ChangePath("c")} {
		if _, ok := m[f]; !ok {
			t.Errorf("merge lacks %s", f)
		}
	}
	if _, ok := m[ChangePath("m")]; ok {
		t.Error("a merge has its own change record")
	}
	if _, ok := p[ChangePath("c")]; !ok {
		t.Error("the pick lacks changes/c")
	}
	if _, ok := p[ChangePath("p")]; ok {
		t.Error("the pick has its own change record")
	}
}

const header = `"name": "x", "noise_cv": 0, "workload": {"tables": 1, "table_size": 1, "threads": 1}`

func TestStatesErrors(t *testing.T) {
	tests := []struct {
		name, commits, want string
	}{
		{"conflict", `{"id": "a", "subject": "s", "knobs": {"k": "1"}},
			{"id": "b", "subject": "s", "knobs": {"k": "2"}},
			{"id": "c", "parents": ["a"], "subject": "s", "knobs": {"k": "3"}},
			{"id": "m", "parents": ["b", "c"], "subject": "merge"}`,
			`commit 4 ("m"): merging "c": knobs/k changed on both sides since "a" ("2" vs "3"); set it in the merge's knobs`},
		{"pick with other pre-image", `{"id": "a", "subject": "s", "knobs": {"k": "1"}},
			{"id": "b", "subject": "s", "knobs": {"k": "2"}},
			{"id": "c", "parents": ["a"], "subject": "s", "knobs": {"j": "5"}},
			{"id": "d", "subject": "s", "knobs": {"k": "3"}},
			{"id": "p", "parents": ["b"], "subject": "s", "cherry_pick": "d"}`,
			`commit 5 ("p"): cherry_pick "d": knobs/k is "2" here but was "1" before "d", so git would see a different patch`},
		{"pick an ancestor", `{"id": "a", "subject": "s"}, {"id": "b", "subject": "s"}, {"id": "p", "subject": "s", "cherry_pick": "a"}`,
			`cherry_pick "a" is already an ancestor`},
		{"criss-cross", `{"id": "a", "subject": "s"}, {"id": "b", "subject": "s"}, {"id": "c", "parents": ["a"], "subject": "s"},
			{"id": "m1", "parents": ["b", "c"], "subject": "s"}, {"id": "m2", "parents": ["c", "b"], "subject": "s"},
			{"id": "x", "parents": ["m1", "m2"], "subject": "s"}`, "criss-cross"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustParse(t, `{`+header+`, "commits": [`+tt.commits+`]}`)
			_, err := s.States()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v\nwant it to contain %q", err, tt.want)
			}
		})
	}
}

func TestMergeResolvedByKnobs(t *testing.T) {
	s := mustParse(t, `{`+header+`, "commits": [
		{"id": "a", "subject": "s", "knobs": {"k": "1", "j": "0"}},
		{"id": "b", "subject": "s", "knobs": {"k": "2"}},
		{"id": "c", "parents": ["a"], "subject": "s", "knobs": {"k": "3", "j": "9"}},
		{"id": "m", "parents": ["b", "c"], "subject": "merge", "knobs": {"k": "4"}}]}`)
	states, err := s.States()
	if err != nil {
		t.Fatal(err)
	}
	if got := states[3].Knobs; got["k"] != "4" || got["j"] != "9" {
		t.Errorf("merge knobs %v, want k=4 (resolved) j=9 (from c)", got)
	}
}
