package build

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strings"
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
