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

// MinCPUsToSplit is the smallest CPU count on which SplitCPUs gives the
// client CPUs of its own: below it the server would lose too large a
// share (on 2 CPUs, half) for the client's sake.
const MinCPUsToSplit = 4

// SplitCPUs divides the CPUs in set between the server and the client:
// the client gets the last quarter (at least one CPU), the server the
// rest. ok is false when the set has fewer than MinCPUsToSplit CPUs.
//
// Why a client of its own (BENCHMARKS.md, "Pinned and unpinned"): on
// shared CPUs the kernel divides time per thread, so a Go client driving
// 128 connections from a few OS threads loses CPU to the server's 128
// connection threads and reports 0.73-0.83x sysbench's TPS; on CPUs of
// its own it reports 0.97-1.10x.
func SplitCPUs(set unix.CPUSet) (server, client string, ok bool) {
	var cpus []int
	for cpu := 0; cpu < 1024 && len(cpus) < set.Count(); cpu++ {
		if set.IsSet(cpu) {
			cpus = append(cpus, cpu)
		}
	}
	if len(cpus) < MinCPUsToSplit {
		return "", "", false
	}
	k := len(cpus) - max(1, len(cpus)/4)
	return FormatCPUList(cpus[:k]), FormatCPUList(cpus[k:]), true
}

// FormatCPUList writes ascending CPU numbers as a taskset list, runs of
// three or more as ranges ("0-5,8,9").
func FormatCPUList(cpus []int) string {
	var b strings.Builder
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		switch {
		case j-i >= 2:
			fmt.Fprintf(&b, "%d-%d", cpus[i], cpus[j])
		case j > i:
			fmt.Fprintf(&b, "%d,%d", cpus[i], cpus[j])
		default:
			fmt.Fprintf(&b, "%d", cpus[i])
		}
		i = j + 1
	}
	return b.String()
}

// AutoPin is the default placement of real runs: when neither CPU list
// is given and this process may run on at least MinCPUsToSplit CPUs, it
// returns SplitCPUs of them; otherwise the lists as given.
func AutoPin(serverCPUs, clientCPUs string) (server, client string, err error) {
	if serverCPUs != "" || clientCPUs != "" {
		return serverCPUs, clientCPUs, nil
	}
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return "", "", fmt.Errorf("reading this process's CPUs: %w", err)
	}
	server, client, _ = SplitCPUs(set)
	return server, client, nil
}
