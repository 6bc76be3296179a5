package build

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
)

// ErrUnbuildable matches (errors.Is) every *Error: the tree does not
// configure, compile or install with the recipe, so a bisect skips it.
var ErrUnbuildable = errors.New("unbuildable")

// TailLines is how many lines of the log an *Error carries.
const TailLines = 20

// An Error is a failed configure, compile or install of one tree. The
// log is kept at LogPath.
type Error struct {
	Source   string   // Source.Name()
	TreeHash string   // the tree that failed
	Step     string   // "configure", "compile", "install" or "binary"
	LogPath  string   // the whole log
	Tail     []string // its last TailLines lines
	Err      error    // what the step returned (an *exec.ExitError, ...)
}

// Error returns a one-line summary; Tail holds the details.
func (e *Error) Error() string {
	return fmt.Sprintf("building %s: %s failed (log %s): %v", e.Source, e.Step, e.LogPath, e.Err)
}

// Unwrap returns the step's error.
func (e *Error) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrUnbuildable) true.
func (e *Error) Is(target error) bool { return target == ErrUnbuildable }

// A HostError is a build that failed for a reason of the machine, not
// of the tree: a full disk, exhausted memory, a compiler killed. The same
// commit builds elsewhere, so it does not match ErrUnbuildable: a bisect
// stops instead of skipping good commits, and a fleet host counts it
// against itself.
type HostError struct {
	Source  string // Source.Name()
	Step    string // "configure", "compile", "install"
	LogPath string // the whole log
	Reason  string // the log line, or the signal, that blames the machine
	Err     error  // what the step returned
}

func (e *HostError) Error() string {
	return fmt.Sprintf("building %s: %s failed because of this machine, not the commit (%s; log %s): fix the machine and rerun",
		e.Source, e.Step, e.Reason, e.LogPath)
}

// Unwrap returns the step's error.
func (e *HostError) Unwrap() error { return e.Err }

// hostFaults are what compilers, linkers, ccache and the kernel write
// when the machine fails a build; none is a verdict on the source.
var hostFaults = []string{
	"No space left on device",
	"Disk quota exceeded",
	"Read-only file system",
	"Input/output error",
	"virtual memory exhausted",
	"Cannot allocate memory",
	"out of memory allocating",
	"Killed signal terminated program", // the OOM killer, as gcc reports it
	"internal compiler error: Killed",
	"ccache: error:",
}

// hostFaultLines is how much of a failed build's log is searched for them.
const hostFaultLines = 200

// hostFault returns why a failed step is the machine's fault, or "": a
// step killed by a signal, or a line of tail (the log's last
// hostFaultLines) of hostFaults.
func hostFault(exit *exec.ExitError, tail []string) string {
	if exit != nil {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return "killed by " + ws.Signal().String()
		}
	}
	for _, line := range tail {
		for _, f := range hostFaults {
			if strings.Contains(line, f) {
				return strings.TrimSpace(line)
			}
		}
	}
	return ""
}

// tailFile returns the last n lines of the file at path (nil on error).
func tailFile(path string, n int) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var ring []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	for sc.Scan() {
		ring = append(ring, strings.TrimRight(sc.Text(), "\r"))
		if len(ring) > n {
			ring = ring[1:]
		}
	}
	return ring
}
