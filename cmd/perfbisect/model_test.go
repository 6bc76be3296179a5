package main

import (
	"errors"
	"strings"
	"testing"
)

func TestModelCommands(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		usage bool     // want a usage error (exit 2)
		want  []string // substrings of stdout (or of the error)
	}{
		{"knobs", []string{"model", "knobs"}, false, []string{"refcount_fix", "tps_factor", "drop_mode", "nonlru_tables"}},
		{"direct", []string{"model", "run", "--direct", "--time", "3", "--table-size", "10000", "--threads", "16"},
			false, []string{"transactions:", "hash hits", "[model]", "Calibration: tps_factor = 1"}},
		{"direct calibrated", []string{"model", "run", "--direct", "--time", "2", "--table-size", "10000", "--knob", "tps_factor=0.99"},
			false, []string{"tps_factor=0.99 [calibration]"}},
		{"loop", []string{"model", "run", "--time", "1", "--table-size", "10000", "--threads", "8", "--report-interval", "0"},
			false, []string{"transactions:", "AHI model counters", "sbtest8"}},
		{"unknown knob", []string{"model", "run", "--knob", "bogus=1"}, true, []string{`"bogus"`}},
		{"knob without value", []string{"model", "run", "--knob", "ahi"}, true, []string{"key=value"}},
		{"bad mode", []string{"model", "run", "--mode", "fast"}, true, []string{"--mode"}},
		{"drop-table", []string{"model", "drop-table", "--table-size", "10000", "--drop-table-rows", "300000", "--time", "6", "--drop-at", "2"},
			false, []string{"eager", "lazy", "longest_stall", "drop_dip", "drop_duration", "per-second TPS"}},
		{"drop outside run", []string{"model", "drop-table", "--time", "5", "--drop-at", "5"}, true, []string{"--drop-at"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			isolate(t)
			out, _, err := execute(t, tc.args...)
			var ue *usageError
			if tc.usage != errors.As(err, &ue) {
				t.Fatalf("err = %v, want usage error: %v", err, tc.usage)
			}
			if !tc.usage && err != nil {
				t.Fatal(err)
			}
			text := out
			if err != nil {
				text = err.Error()
			}
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("output lacks %q:\n%s", w, text)
				}
			}
		})
	}
}
