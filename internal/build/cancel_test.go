package build

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// slowCMake adds a build step that signals it started and then sleeps
// far longer than any test waits.
const slowCMake = `add_custom_command(OUTPUT slow.stamp
  COMMAND sh ${CMAKE_SOURCE_DIR}/slow.sh
  COMMAND ${CMAKE_COMMAND} -E touch slow.stamp)
add_custom_target(slow ALL DEPENDS slow.stamp)
`

// TestBuildCancel cancels a build in the middle of a step and checks
// that Build returns the cancellation (not "unbuildable"), that no child
// process (cmake, ninja, sh, sleep) survives, that nothing is installed,
// and that the next build of the same build directory succeeds.
func TestBuildCancel(t *testing.T) {
	requireTools(t)
	started := filepath.Join(t.TempDir(), "started")
	marker := fmt.Sprintf("PERFBISECT_BUILD_TEST=%d-%d", os.Getpid(), time.Now().UnixNano())
	b := newToyBuilder(t, toyRecipe("TOY_STARTED="+started, marker))
	tr := newToyRepo(t)
	base := tr.source(context.Background(), "HEAD")
	tr.commit("slow", map[string]string{
		"CMakeLists.txt": toyFiles["CMakeLists.txt"] + slowCMake,
		"slow.sh":        "touch \"$TOY_STARTED\"\nsleep 600\n",
	})
	slow := tr.source(context.Background(), "HEAD")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	var progress bytes.Buffer // written by Build only until it returns
	go func() {
		_, err := b.Build(ctx, slow, &progress)
		done <- err
	}()
	waitFor(t, done, func() bool { return exists(started) }, "the slow step to start")
	if n := processesWith(marker); n == 0 {
		t.Fatal("no process carries the test's marker while the slow step runs: the check below would prove nothing")
	}
	cancel()
	var err error
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("Build did not return within 2 minutes of the cancellation")
	}
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrUnbuildable) {
		t.Fatalf("Build error = %v, want a cancellation that is not ErrUnbuildable", err)
	}
	if n := processesWith(marker); n != 0 {
		t.Errorf("%d build processes survive the cancellation", n)
	}
	if exists(b.Prefix(slow.TreeHash())) {
		t.Errorf("a cancelled build left its prefix %s", b.Prefix(slow.TreeHash()))
	}
	a, err := b.Build(context.Background(), base, nil)
	if err != nil || a.Cached {
		t.Fatalf("building after the cancellation: %v (artifact %+v)", err, a)
	}
}

// waitFor polls cond until it holds, failing when Build returns first or
// a minute passes.
func waitFor(t *testing.T, done <-chan error, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		select {
		case err := <-done:
			t.Fatalf("Build returned (%v) before %s", err, what)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited a minute for %s", what)
		}
	}
}

// processesWith counts the processes whose environment holds entry.
// Children inherit the Builder's environment, so this finds cmake, ninja
// and everything they started, orphans included.
func processesWith(entry string) int {
	procs, _ := filepath.Glob("/proc/[0-9]*/environ")
	n := 0
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		for _, e := range strings.Split(string(b), "\x00") {
			if e == entry {
				n++
				break
			}
		}
	}
	return n
}
