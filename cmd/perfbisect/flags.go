package main

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/spf13/pflag"
)

// The workload flags (--tables, --table-size, --threads, --time, --warmup)
// are spelled, parsed and checked the same way by every command that takes
// them: pointselect, model, measure and bisect (also with --dry-run, which
// ignores them but still refuses nonsense). Their values check themselves
// when parsed, so an invalid one is a usage error (exit 2) before any
// command runs.

// Limits of the workload flags.
const (
	maxTables    = 100000
	maxTableSize = 1<<31 - 1 // sysbench's ids are signed 32-bit
	maxThreads   = 100000
)

// durationHelp ends the help of every duration flag.
const durationHelp = ": seconds as in sysbench (60) or a duration (1m30s)"

// tablesVar binds --tables: 1..maxTables.
func tablesVar(fs *pflag.FlagSet, p *int, def int, usage string) {
	fs.Var(newIntValue(p, def, 1, maxTables), "tables", usage)
}

// tableSizeVar binds --table-size: 1..maxTableSize rows.
func tableSizeVar(fs *pflag.FlagSet, p *int64, def int64, usage string) {
	fs.Var(newIntValue(p, def, 1, maxTableSize), "table-size", usage)
}

// threadsVar binds --threads: 1..maxThreads.
func threadsVar(fs *pflag.FlagSet, p *int, def int, usage string) {
	fs.Var(newIntValue(p, def, 1, maxThreads), "threads", usage)
}

// timeVar binds --time: a positive duration.
func timeVar(fs *pflag.FlagSet, p *time.Duration, def time.Duration, usage string) {
	durationVar(fs, p, "time", def, false, usage)
}

// warmupVar binds --warmup: a duration, 0 for none.
func warmupVar(fs *pflag.FlagSet, p *time.Duration, def time.Duration, usage string) {
	durationVar(fs, p, "warmup", def, true, usage)
}

// durationVar binds a duration flag that also takes plain seconds; zeroOK
// says whether 0 is allowed (negative never is).
func durationVar(fs *pflag.FlagSet, p *time.Duration, name string, def time.Duration, zeroOK bool, usage string) {
	*p = def
	fs.Var(&durationValue{p: p, zeroOK: zeroOK}, name, usage+durationHelp)
}

// An intValue is an integer flag with an inclusive range.
type intValue[T int | int64] struct {
	p        *T
	min, max T
}

func newIntValue[T int | int64](p *T, def, lo, hi T) *intValue[T] {
	*p = def
	return &intValue[T]{p: p, min: lo, max: hi}
}

func (v *intValue[T]) Set(s string) error {
	n, err := strconv.ParseInt(s, 0, 64)
	if err != nil {
		return fmt.Errorf("not an integer")
	}
	if n < int64(v.min) || n > int64(v.max) {
		return fmt.Errorf("must be in %d..%d", v.min, v.max)
	}
	*v.p = T(n)
	return nil
}

func (v *intValue[T]) String() string {
	if v.p == nil {
		return "0"
	}
	return strconv.FormatInt(int64(*v.p), 10)
}

func (v *intValue[T]) Type() string { return "int" }

// A durationValue is a duration flag that takes plain seconds ("60",
// "0.5", as sysbench) or a Go duration ("90s", "1m30s").
type durationValue struct {
	p      *time.Duration
	zeroOK bool
}

func (v *durationValue) Set(s string) error {
	d, err := parseSeconds(s)
	if err != nil {
		return err
	}
	switch {
	case d < 0:
		return fmt.Errorf("must not be negative")
	case d == 0 && !v.zeroOK:
		return fmt.Errorf("must be more than 0")
	}
	*v.p = d
	return nil
}

// String is "0" for zero, which pflag's help leaves out as a default
// (a flag whose zero means "derived", like --drop-at, says so itself).
func (v *durationValue) String() string {
	if v.p == nil || *v.p == 0 {
		return "0"
	}
	return v.p.String()
}

func (v *durationValue) Type() string { return "duration" }

// parseSeconds reads a number of seconds or a Go duration.
func parseSeconds(s string) (time.Duration, error) {
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if math.IsNaN(f) || math.Abs(f) > math.MaxInt64/float64(time.Second) {
			return 0, fmt.Errorf("seconds out of range")
		}
		return time.Duration(math.Round(f * float64(time.Second))), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("want seconds (60) or a duration (1m30s)")
	}
	return d, nil
}
