package runner

import (
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func TestParseCPUList(t *testing.T) {
	set, err := ParseCPUList("0,2-3")
	if err != nil || set.Count() != 3 || !set.IsSet(0) || set.IsSet(1) || !set.IsSet(3) {
		t.Errorf("0,2-3: %v, %v", set, err)
	}
	for _, bad := range []string{"", "a", "3-1", "-1", "0-"} {
		if _, err := ParseCPUList(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestPinProcess(t *testing.T) {
	var before unix.CPUSet
	if err := unix.SchedGetaffinity(0, &before); err != nil {
		t.Skip(err)
	}
	var cpus []string
	for i := 0; i < 1024; i++ {
		if before.IsSet(i) {
			cpus = append(cpus, strconv.Itoa(i))
		}
	}
	// Restore every thread, so later tests' servers are not pinned.
	defer PinProcess(strings.Join(cpus, ","))
	if err := PinProcess(cpus[0]); err != nil {
		t.Fatal(err)
	}
	var now unix.CPUSet
	if err := unix.SchedGetaffinity(0, &now); err != nil || now.Count() != 1 || !now.IsSet(mustAtoi(cpus[0])) {
		t.Errorf("after pinning to CPU %s: %d CPUs, %v", cpus[0], now.Count(), err)
	}
}

func mustAtoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
