package main

import (
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func TestParseSeconds(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		bad  bool
	}{
		{"60", time.Minute, false},
		{"60s", time.Minute, false},
		{"1m30s", 90 * time.Second, false},
		{"0.5", 500 * time.Millisecond, false},
		{"0", 0, false},
		{"-1", -time.Second, false},
		{"1e300", 0, true},
		{"NaN", 0, true},
		{"ten", 0, true},
		{"10x", 0, true},
	}
	for _, tt := range tests {
		got, err := parseSeconds(tt.in)
		if (err != nil) != tt.bad || got != tt.want {
			t.Errorf("parseSeconds(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.bad)
		}
	}
}

// workloadFlagNames are the flags every command spells the same way.
var workloadFlagNames = []string{"tables", "table-size", "threads", "time", "warmup"}

// eachWorkloadFlag calls fn for every workload flag of every command, on a
// fresh command tree each time (fn may set the flag).
func eachWorkloadFlag(t *testing.T, fn func(path, name string, f *pflag.Flag)) {
	t.Helper()
	var walk func(c *cobra.Command)
	seen := 0
	walk = func(c *cobra.Command) {
		for _, name := range workloadFlagNames {
			if lookupFlag(c, name) == nil {
				continue
			}
			seen++
			fresh, _, err := newRootCmd(io.Discard, io.Discard).Find(strings.Fields(c.CommandPath())[1:])
			if err != nil {
				t.Fatal(err)
			}
			fn(c.CommandPath(), name, lookupFlag(fresh, name))
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd(io.Discard, io.Discard))
	if seen < 20 {
		t.Fatalf("found only %d workload flags; the walk is broken", seen)
	}
}

// lookupFlag finds a flag of c: its own, persistent or inherited.
func lookupFlag(c *cobra.Command, name string) *pflag.Flag {
	for _, fs := range []*pflag.FlagSet{c.Flags(), c.PersistentFlags(), c.InheritedFlags()} {
		if f := fs.Lookup(name); f != nil {
			return f
		}
	}
	return nil
}

// TestWorkloadFlagsOneSpelling: every --time and --warmup takes seconds as
// sysbench does and a Go duration, with the same help; every count flag
// checks its range.
func TestWorkloadFlagsOneSpelling(t *testing.T) {
	eachWorkloadFlag(t, func(path, name string, f *pflag.Flag) {
		switch v := f.Value.(type) {
		case *durationValue:
			if !strings.HasSuffix(f.Usage, durationHelp) {
				t.Errorf("%s --%s: help %q lacks %q", path, name, f.Usage, durationHelp)
			}
			for in, want := range map[string]time.Duration{"60": time.Minute, "90s": 90 * time.Second, "1m30s": 90 * time.Second} {
				if err := f.Value.Set(in); err != nil || *v.p != want {
					t.Errorf("%s --%s %s: %v, %v; want %v", path, name, in, *v.p, err, want)
				}
			}
			if err := f.Value.Set("-1"); err == nil {
				t.Errorf("%s --%s -1: accepted", path, name)
			}
		case *intValue[int], *intValue[int64]:
			for _, in := range []string{"0", "-5", "99999999999", "x"} {
				if err := f.Value.Set(in); err == nil {
					t.Errorf("%s --%s %s: accepted", path, name, in)
				}
			}
			if err := f.Value.Set("16"); err != nil {
				t.Errorf("%s --%s 16: %v", path, name, err)
			}
		default:
			t.Errorf("%s --%s is a %T (%s), not one of flags.go's workload values", path, name, f.Value, f.Value.Type())
		}
	})
}

// TestWorkloadFlagsRejectNonsense: invalid workload flags are usage errors
// (exit 2) in every command, dry runs included, before anything is opened.
func TestWorkloadFlagsRejectNonsense(t *testing.T) {
	commands := [][]string{
		{"bisect", "--dry-run", "--good", "11.8.6", "--bad", "12.0.1"},
		{"--dry-run", "--good", "11.8.6", "--bad", "12.0.1"},
		{"bisect", "--good", "11.8.6", "--bad", "12.0.1", "--repo", "/nonexistent"},
		{"measure", "--repo", "/nonexistent", "HEAD"},
		{"model", "run"},
		{"model", "run", "--direct"},
		{"model", "drop-table"},
		{"pointselect", "run"},
	}
	bad := [][]string{
		{"--threads", "-5"}, {"--threads", "0"}, {"--threads", "1000001"},
		{"--time", "0"}, {"--time", "-3s"}, {"--time", "soon"},
		{"--table-size", "-1"}, {"--tables", "0"},
	}
	for _, c := range commands {
		for _, b := range bad {
			if c[0] == "pointselect" && b[0] == "--time" && b[1] == "0" {
				b = []string{"--time", "0", "--events", "0"} // 0 means no time limit there, as in sysbench
			}
			path := isolate(t)
			args := append(append([]string{}, c...), b...)
			_, _, err := execute(t, args...)
			var ue *usageError
			if !errors.As(err, &ue) {
				t.Errorf("%v: err = %v, want a usage error", args, err)
			} else if !strings.Contains(err.Error(), b[0]) {
				t.Errorf("%v: %q does not name %s", args, err, b[0])
			}
			if _, err := os.Stat(path); !os.IsNotExist(err) {
				t.Errorf("%v: the store was created before the flags were checked", args)
			}
		}
	}
	// --warmup may be 0 but never negative.
	for _, c := range commands {
		if c[0] == "model" && c[1] == "drop-table" {
			continue
		}
		args := append(append([]string{}, c...), "--warmup", "-1")
		var ue *usageError
		if _, _, err := execute(t, args...); !errors.As(err, &ue) {
			t.Errorf("%v: err = %v, want a usage error", args, err)
		}
	}
}

// TestTimeSpellingsAgree: --time 2 and --time 2s run the same simulation.
func TestTimeSpellingsAgree(t *testing.T) {
	isolate(t)
	var outs []string
	for _, d := range []string{"2", "2s", "0m2s"} {
		out, _, err := execute(t, "model", "run", "--direct", "--time", d, "--table-size", "10000", "--threads", "8")
		if err != nil {
			t.Fatalf("--time %s: %v", d, err)
		}
		outs = append(outs, out)
	}
	if outs[0] != outs[1] || outs[1] != outs[2] {
		t.Errorf("--time 2, 2s and 0m2s differ:\n%s\n%s\n%s", outs[0], outs[1], outs[2])
	}
}
