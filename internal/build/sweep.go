package build

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"
)

// tokenVar is the environment variable that marks every process a
// Builder starts, and everything those start in turn.
const tokenVar = "PERFBISECT_BUILD_TOKEN"

var tokenSeq atomic.Int64

// newToken returns an environment entry unique to one child process tree.
func newToken() string {
	return fmt.Sprintf("%s=%d-%d-%d", tokenVar, os.Getpid(), time.Now().UnixNano(), tokenSeq.Add(1))
}

// sweep kills every process whose environment holds token and waits until
// none is left or limit passes. After a cancellation ninja has sent
// SIGTERM to its steps and waited for their first processes only; a
// step's own children (a shell's grandchildren, a compiler's cc1plus) may
// still be on their way out, or may ignore SIGTERM. Zombies have no
// environment, so they do not count.
func sweep(token string, limit time.Duration) {
	deadline := time.Now().Add(limit)
	for {
		pids := processesWithEnv(token)
		if len(pids) == 0 || time.Now().After(deadline) {
			return
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// processesWithEnv returns the processes (of this user; others' are
// unreadable) whose environment holds entry.
func processesWithEnv(entry string) []int {
	procs, _ := filepath.Glob("/proc/[0-9]*/environ")
	want := []byte(entry)
	self := os.Getpid()
	var pids []int
	for _, p := range procs {
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		if err != nil || pid == self {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		for _, e := range bytes.Split(b, []byte{0}) {
			if bytes.Equal(e, want) {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}
