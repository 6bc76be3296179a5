package runner

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// ParseCPUList parses a taskset-style CPU list ("0", "0-1", "0,2-3").
func ParseCPUList(list string) (unix.CPUSet, error) {
	var set unix.CPUSet
	for _, part := range strings.Split(list, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err := strconv.Atoi(lo)
		b := a
		if err == nil && isRange {
			b, err = strconv.Atoi(hi)
		}
		if err != nil || a < 0 || b < a || b >= 1024 {
			return set, fmt.Errorf("CPU list %q: want numbers and ranges such as 0,2-3", list)
		}
		for cpu := a; cpu <= b; cpu++ {
			set.Set(cpu)
		}
	}
	return set, nil
}

// PinProcess pins every thread of this process (and so the threads it
// starts later, which inherit the mask) to the CPUs of list: the client
// side of taskset pinning.
func PinProcess(list string) error {
	set, err := ParseCPUList(list)
	if err != nil {
		return err
	}
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return fmt.Errorf("pinning the client: %w", err)
	}
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		if err := unix.SchedSetaffinity(tid, &set); err != nil && err != unix.ESRCH {
			return fmt.Errorf("pinning the client to CPUs %s: %w", list, err)
		}
	}
	return nil
}
