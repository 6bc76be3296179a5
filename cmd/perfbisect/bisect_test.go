package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/perfbisect/perfbisect/internal/pipeline"
	"github.com/perfbisect/perfbisect/internal/store"
)

// TestMain lets tests run this binary as perfbisect itself in a child
// process (to kill it), without building it first.
func TestMain(m *testing.M) {
	if os.Getenv("PERFBISECT_RUN_MAIN") == "1" {
		os.Exit(run())
	}
	os.Exit(m.Run())
}

const smallScenario = "testdata/small-regression.json"

// perfbisectCmd returns the test binary set up to act as perfbisect with
// its own cache directory.
func perfbisectCmd(cache string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "PERFBISECT_RUN_MAIN=1", "XDG_CACHE_HOME="+cache, "PERFBISECT_DB=")
	return cmd
}

func countRuns(t *testing.T, cache string) int {
	t.Helper()
	s, err := store.Open(context.Background(), filepath.Join(cache, "perfbisect", "perfbisect.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	runs, err := s.Runs(context.Background(), store.RunFilter{})
	if err != nil {
		t.Fatal(err)
	}
	return len(runs)
}

func bisectJSON(t *testing.T, cache string) pipeline.Outcome {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := perfbisectCmd(cache, "bisect", "--dry-run", "--scenario", smallScenario, "--good", "v1.0", "--bad", "v1.1", "--json")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("bisect: %v\n%s", err, stderr.String())
	}
	var o pipeline.Outcome
	if err := json.Unmarshal(stdout.Bytes(), &o); err != nil {
		t.Fatalf("bisect --json: %v\n%s", err, stdout.String())
	}
	return o
}

// A dry-run bisect killed with SIGKILL midway, then rerun, gives the same
// answer as an uninterrupted one and repeats no measurement.
func TestKilledBisectResumes(t *testing.T) {
	whole := t.TempDir()
	want := bisectJSON(t, whole)
	if len(want.Result.Culprits) != 1 || want.Result.Culprits[0].Commit.Subject != "slow down point select by 3 %" {
		t.Fatalf("uninterrupted bisect found %+v", want.Result.Culprits)
	}
	wantRuns := countRuns(t, whole)

	killed := t.TempDir()
	cmd := perfbisectCmd(killed, "bisect", "--dry-run", "--scenario", smallScenario, "--good", "v1.0", "--bad", "v1.1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		// The first midpoint verdict: the endpoints are done, the search is not.
		if strings.Contains(sc.Text(), "] bisect: ") && strings.Contains(sc.Text(), " after ") {
			cmd.Process.Signal(syscall.SIGKILL)
			break
		}
	}
	err = cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
		t.Fatalf("the bisect was not killed midway (%v): nothing to resume", err)
	}
	partial := countRuns(t, killed)
	if partial == 0 || partial >= wantRuns {
		t.Fatalf("killed after %d runs of %d: not midway", partial, wantRuns)
	}

	got := bisectJSON(t, killed)
	if !got.Resumed || got.BisectID == "" {
		t.Errorf("the rerun did not resume: %+v", got)
	}
	if len(got.Result.Culprits) != 1 || got.Result.Culprits[0].Commit.Hash != want.Result.Culprits[0].Commit.Hash ||
		got.Result.Culprits[0].Effect != want.Result.Culprits[0].Effect {
		t.Errorf("resumed culprits %+v, want %+v", got.Result.Culprits, want.Result.Culprits)
	}
	if n := countRuns(t, killed); n != wantRuns {
		t.Errorf("killed and resumed bisect stored %d runs, an uninterrupted one %d: a measurement was repeated or lost", n, wantRuns)
	}
	if got.Taken != wantRuns-partial {
		t.Errorf("the rerun measured %d runs, want the %d missing", got.Taken, wantRuns-partial)
	}
}

// Bad requests end with a one-line error and write nothing.
func TestBisectBadRequestsWriteNothing(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"wrong revision", []string{"--good", "v1.0", "--bad", "v9.9"}, "v9.9"},
		{"good equals bad", []string{"--good", "v1.0", "--bad", "v1.0"}, "same commit"},
		{"empty range", []string{"--good", "v1.1", "--bad", "v1.0"}, "range is empty"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := isolate(t)
			args := append([]string{"bisect", "--dry-run", "--scenario", smallScenario, "-q"}, c.args...)
			_, _, err := execute(t, args...)
			if err == nil {
				t.Fatal("bisect succeeded")
			}
			if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, c.want) {
				t.Errorf("error %q: want one line containing %q", msg, c.want)
			}
			s, err := store.Open(context.Background(), path, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if bs, _ := s.Bisects(context.Background(), 0); len(bs) != 0 {
				t.Errorf("%d bisects stored", len(bs))
			}
			if runs, _ := s.Runs(context.Background(), store.RunFilter{}); len(runs) != 0 {
				t.Errorf("%d runs stored", len(runs))
			}
		})
	}
}

func TestBisectUnreachableDatabase(t *testing.T) {
	isolate(t)
	_, _, err := execute(t, "--db", "postgres://u:pw@127.0.0.1:1/x?connect_timeout=2", "bisect", "--dry-run",
		"--scenario", smallScenario, "--good", "v1.0", "--bad", "v1.1")
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "cannot reach postgres") {
		t.Errorf("err = %v", err)
	}
}

// The root shorthand and the exit codes: a found culprit is 0, a planted
// A/A (good and bad equal in speed) is "not reproduced", code 3.
func TestBisectShorthandAndExitCodes(t *testing.T) {
	isolate(t)
	out, _, err := execute(t, "--good", "v1.0", "--bad", "v1.1", "--dry-run", "--scenario", smallScenario, "-q")
	if err != nil || !strings.Contains(out, "slow down point select by 3 %") {
		t.Fatalf("shorthand: %v\n%s", err, out)
	}
	out, _, err = execute(t, "bisect", "--dry-run", "--scenario", smallScenario, "--good", "v1.0", "--bad", "v1.0.10", "-q")
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != exitNotReproduced || !strings.Contains(out, "NOT REPRODUCED") {
		t.Errorf("A/A range: err = %v, output:\n%s", err, out)
	}
}

// The README's main job: the seed incident in the dry run.
func TestDryRunSeedIncident(t *testing.T) {
	isolate(t)
	out, _, err := execute(t, "--good", "11.8.6", "--bad", "12.0.1", "--dry-run", "--json", "-q")
	if err != nil {
		t.Fatal(err)
	}
	var o pipeline.Outcome
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		t.Fatal(err)
	}
	r := o.Result
	if r.MergeBase == nil || r.MergeBaseLike != "bad" {
		t.Errorf("merge base %v performs like %q, want like bad (12.0.1)", r.MergeBase, r.MergeBaseLike)
	}
	if len(r.Culprits) != 1 {
		t.Fatalf("culprits: %+v", r.Culprits)
	}
	c := r.Culprits[0]
	if !strings.Contains(c.Commit.Subject, "83a48d2bc84") || c.Regression || c.Branch != "good" ||
		!c.CheckedBadBranch || c.EquivalentOnBad != nil || !c.Verified {
		t.Errorf("culprit: %+v; want 83a48d2bc84, an improvement on the good side, absent from the bad branch", c)
	}
	if c.Effect.Delta < 0.003 || c.Effect.Delta > 0.01 {
		t.Errorf("effect %+.2f %%, want about +0.6 %%", 100*c.Effect.Delta)
	}
}

func TestDBBisectsListsStoredBisects(t *testing.T) {
	isolate(t)
	if _, _, err := execute(t, "bisect", "--dry-run", "--scenario", smallScenario, "--good", "v1.0", "--bad", "v1.1", "-q"); err != nil {
		t.Fatal(err)
	}
	out, _, err := execute(t, "db", "bisects", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var lines []bisectLine
	if err := json.Unmarshal([]byte(out), &lines); err != nil || len(lines) != 1 {
		t.Fatalf("%v: %s", err, out)
	}
	if l := lines[0]; l.Status != "done" || l.Good != "v1.0" || l.Bad != "v1.1" || !l.DryRun || l.Scenario != "small-regression" {
		t.Errorf("listed %+v", l)
	}
	if out, _, err := execute(t, "report", lines[0].ID); err != nil || !strings.Contains(out, "slow down point select by 3 %") {
		t.Errorf("report of the listed bisect: %v\n%s", err, out)
	}
}

// Ctrl-C (SIGINT) midway: exit 130 with one line saying how to resume,
// the bisect listed as interrupted, and the rerun says it resumes it.
func TestInterruptedBisectSaysHowToResume(t *testing.T) {
	cache := t.TempDir()
	args := []string{"bisect", "--dry-run", "--scenario", smallScenario, "--good", "v1.0", "--bad", "v1.1"}
	cmd := perfbisectCmd(cache, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var lines []string
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if strings.Contains(sc.Text(), "] bisect: ") {
			cmd.Process.Signal(os.Interrupt)
		}
	}
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Fatalf("exit code %d, want 130\n%s", code, strings.Join(lines, "\n"))
	}
	last := lines[len(lines)-1]
	if !strings.Contains(last, "interrupted: rerun the same command to resume bisect ") {
		t.Fatalf("last line %q: want how to resume", last)
	}
	id := last[strings.Index(last, "resume bisect ")+len("resume bisect "):]
	id = strings.Fields(id)[0]

	var out bytes.Buffer
	list := perfbisectCmd(cache, "db", "bisects", "--json")
	list.Stdout = &out
	if err := list.Run(); err != nil {
		t.Fatal(err)
	}
	var listed []bisectLine
	if err := json.Unmarshal(out.Bytes(), &listed); err != nil || len(listed) != 1 || listed[0].ID != id || listed[0].Status != "interrupted" {
		t.Fatalf("listed %+v (%v), want bisect %s interrupted", listed, err, id)
	}

	var rerr bytes.Buffer
	rerun := perfbisectCmd(cache, args...)
	rerun.Stderr = &rerr
	if err := rerun.Run(); err != nil {
		t.Fatalf("rerun: %v\n%s", err, rerr.String())
	}
	if !strings.Contains(rerr.String(), "resuming bisect "+id) {
		t.Errorf("the rerun does not say it resumes %s:\n%s", id, rerr.String())
	}
}

// compare on the dry run: the seed's two releases differ by about 0.6 %
// (12.0.1 lacks the AHI fixup), in the right direction, reusing the runs
// on a second call.
func TestCompareDryRun(t *testing.T) {
	isolate(t)
	out, _, err := execute(t, "compare", "--dry-run", "--runs", "6", "--json", "-q", "11.8.6", "12.0.1")
	if err != nil {
		t.Fatal(err)
	}
	var c pipeline.Comparison
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if c.Verdict != "worse" || c.Delta > -0.003 || c.Delta < -0.01 || len(c.A.Samples) != 6 || c.Taken != 12 {
		t.Errorf("compare 11.8.6 12.0.1: %s %+.2f %% on %d+%d runs (%d taken), want worse by about 0.6 %%",
			c.Verdict, 100*c.Delta, len(c.A.Samples), len(c.B.Samples), c.Taken)
	}
	out, _, err = execute(t, "compare", "--dry-run", "--runs", "6", "--json", "-q", "11.8.6", "12.0.1")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(out), &c); err != nil || c.Reused != 12 || c.Taken != 0 {
		t.Errorf("second compare: %v, taken %d reused %d; want every run reused", err, c.Taken, c.Reused)
	}
	if _, _, err := execute(t, "compare", "--dry-run", "11.8.6", "11.8.6"); err == nil || !strings.Contains(err.Error(), "same commit") {
		t.Errorf("same commit: %v", err)
	}
}

// Two identical bisects at once on one store: the second refuses with one
// line naming the first, and no sample is stored twice.
func TestConcurrentIdenticalBisectsRefuse(t *testing.T) {
	whole := t.TempDir()
	bisectJSON(t, whole)
	wantRuns := countRuns(t, whole)

	cache := t.TempDir()
	args := []string{"bisect", "--dry-run", "--scenario", smallScenario, "--good", "v1.0", "--bad", "v1.1"}
	first := perfbisectCmd(cache, args...)
	stderr, err := first.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	var second *exec.Cmd
	var secondErr bytes.Buffer
	for sc.Scan() {
		if second == nil && strings.HasPrefix(sc.Text(), "endpoints: ") {
			first.Process.Signal(syscall.SIGSTOP) // hold it mid-bisect, its claim alive
			second = perfbisectCmd(cache, args...)
			second.Stderr = &secondErr
			err := second.Run()
			first.Process.Signal(syscall.SIGCONT)
			if err == nil || second.ProcessState.ExitCode() != 1 {
				t.Errorf("the second bisect: %v, want exit 1\n%s", err, secondErr.String())
			}
		}
	}
	if err := first.Wait(); err != nil {
		t.Fatalf("the first bisect: %v", err)
	}
	if second == nil {
		t.Fatal("the first bisect printed no endpoint verdict")
	}
	msg := strings.TrimSpace(secondErr.String())
	if !strings.Contains(msg, "is being run by another perfbisect") || strings.Count(msg, "\n") > 1 {
		t.Errorf("the second bisect said %q: want one line naming the first", msg)
	}
	if n := countRuns(t, cache); n != wantRuns {
		t.Errorf("%d runs stored, a single bisect stores %d: a sample was counted twice or lost", n, wantRuns)
	}
}
