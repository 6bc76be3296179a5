package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestScenarioCommands(t *testing.T) {
	isolate(t)
	tests := []struct {
		args    []string
		wantOut []string
		usage   bool // exit 2
		errHas  string
	}{
		{args: []string{"scenario", "list"}, wantOut: []string{"mdev-12.0-point-select", "drop-table-stall", "mariadb-12.0.1"}},
		{args: []string{"scenario", "show", "mdev-12.0-point-select"}, wantOut: []string{
			"83a48d2bc84 AHI fixup", "knobs:   refcount_fix=true", "cherry-pick of a12",
			"mariadb-12.0.1         ahi=on", "tps_factor=0.999"}},
		{args: []string{"scenario", "show", "no-such-scenario"}, errHas: "neither a built-in scenario"},
		{args: []string{"scenario", "show"}, usage: true},
		{args: []string{"scenario", "list", "extra"}, usage: true},
		{args: []string{"scenario", "materialize", "drop-table-stall"}, usage: true},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			out, _, err := execute(t, tt.args...)
			var ue *usageError
			switch {
			case tt.usage:
				if !errors.As(err, &ue) {
					t.Errorf("err = %v, want a usage error", err)
				}
				return
			case tt.errHas != "":
				if err == nil || !strings.Contains(err.Error(), tt.errHas) {
					t.Errorf("err = %v, want %q", err, tt.errHas)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			for _, w := range tt.wantOut {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

func TestScenarioShowJSONRoundTrip(t *testing.T) {
	isolate(t)
	out, _, err := execute(t, "scenario", "show", "--json", "drop-table-stall")
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil || v["name"] != "drop-table-stall" {
		t.Fatalf("--json output: %v %v", err, v["name"])
	}
	file := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(file, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "repo")
	out, _, err = execute(t, "scenario", "materialize", file, dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "32 commits, HEAD on branch main") {
		t.Errorf("materialize output %q", out)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "knobs", "drop_mode")); err != nil || string(b) != "lazy\n" {
		t.Errorf("checked-out knobs/drop_mode = %q, %v", b, err)
	}
	if _, _, err := execute(t, "scenario", "materialize", file, dir); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("second materialize: err = %v", err)
	}
}
