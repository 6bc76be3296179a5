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

func TestSplitCPUs(t *testing.T) {
	for _, c := range []struct {
		set, server, client string
		ok                  bool
	}{
		{"0", "", "", false},
		{"0-1", "", "", false}, // this machine: the server keeps both CPUs
		{"0-2", "", "", false},
		{"0-3", "0-2", "3", true},
		{"0-7", "0-5", "6,7", true},
		{"0-15", "0-11", "12-15", true},
		{"2,4-6,9", "2,4-6", "9", true}, // a cgroup's odd CPUs: the last one goes to the client
	} {
		set, err := ParseCPUList(c.set)
		if err != nil {
			t.Fatal(err)
		}
		server, client, ok := SplitCPUs(set)
		if server != c.server || client != c.client || ok != c.ok {
			t.Errorf("SplitCPUs(%s) = %q, %q, %v; want %q, %q, %v", c.set, server, client, ok, c.server, c.client, c.ok)
		}
		if !ok {
			continue
		}
		// Every CPU goes to exactly one side.
		s, _ := ParseCPUList(server)
		k, _ := ParseCPUList(client)
		if s.Count()+k.Count() != set.Count() {
			t.Errorf("SplitCPUs(%s): %s + %s do not cover the set once", c.set, server, client)
		}
	}
}

func TestAutoPinKeepsGivenLists(t *testing.T) {
	server, client, err := AutoPin("1", "")
	if err != nil || server != "1" || client != "" {
		t.Errorf("AutoPin(1, \"\") = %q, %q, %v; want the lists as given", server, client, err)
	}
}
