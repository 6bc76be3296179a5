package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/internal/fakemariadb"
	"github.com/perfbisect/perfbisect/internal/pipeline"
	"github.com/perfbisect/perfbisect/internal/store"
)

// slowServerOptions plant a large slowdown (about 5x here): every query is
// written to the general log (a table too) and to the slow log with its
// query plan, and the performance schema times every wait.
const slowServerOptions = "--general-log=1 --log-output=TABLE,FILE --slow-query-log=1 --long-query-time=0 " +
	"--log-slow-verbosity=query_plan,explain --performance-schema=ON --performance-schema-instrument=%=ON " +
	"--performance-schema-consumer-events-waits-current=ON --performance-schema-consumer-events-waits-history=ON " +
	"--performance-schema-consumer-events-waits-history-long=ON"

var measureWorkload = []string{"--recipe", "testdata/fakemariadb/recipe.json", "--tables", "2",
	"--table-size", "30000", "--threads", "8", "--time", "2s", "--warmup", "1s"}

// measure builds real "servers" that differ in their buffer pool, finds
// the expected order of TPS, and reports a server that crashes at start
// with its error log.
func TestMeasureOrderAndCrash(t *testing.T) {
	fakemariadb.NeedTools(t)
	isolate(t)
	dir := fakemariadb.Repo(t, [][2]string{
		{"large", "--innodb-buffer-pool-size=256M"},
		{"tiny", "--innodb-buffer-pool-size=6M --innodb-buffer-pool-chunk-size=1M " + slowServerOptions},
		{"crash", "--no-such-option-perfbisect=1"},
	})
	args := append([]string{"measure", "--repo", dir, "--runs", "2", "--json"}, measureWorkload...)
	out, stderr, err := execute(t, append(args, "large", "tiny", "crash")...)
	if err == nil || !strings.Contains(err.Error(), "1 of 3 revisions") {
		t.Fatalf("err = %v (want the crash counted)\n%s", err, stderr)
	}
	var rows []pipeline.MeasureRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	large, tiny, crash := rows[0], rows[1], rows[2]
	if large.Runs != 2 || tiny.Runs != 2 {
		t.Fatalf("runs: large %d, tiny %d\n%s", large.Runs, tiny.Runs, stderr)
	}
	t.Logf("large pool %.0f tps, tiny pool and slow logs %.0f tps", large.Median, tiny.Median)
	if !(large.Median > 2*tiny.Median) {
		t.Errorf("large pool %.0f tps, tiny pool %.0f tps: want the large one clearly faster", large.Median, tiny.Median)
	}
	if !strings.Contains(crash.Error, "crashed") || !strings.Contains(crash.Error, "no-such-option-perfbisect") {
		t.Errorf("crash row: %q", crash.Error)
	}
	// Measuring again reuses the stored runs: no server starts.
	out, _, err = execute(t, append(args, "large")...)
	if err != nil {
		t.Fatal(err)
	}
	var again []pipeline.MeasureRow
	json.Unmarshal([]byte(out), &again)
	if len(again) != 1 || again[0].Median != large.Median {
		t.Errorf("second measure: %+v, want the stored %v", again, large.Samples)
	}
}

// SIGTERM during a run leaves no mariadbd and no partial run.
func TestMeasureSIGTERMLeavesNothing(t *testing.T) {
	fakemariadb.NeedTools(t)
	cache := t.TempDir()
	dir := fakemariadb.Repo(t, [][2]string{{"large", "--innodb-buffer-pool-size=128M"}})
	args := append([]string{"measure", "--repo", dir, "--runs", "3"}, measureWorkload...)
	args[len(args)-3] = "5s" // --time: long enough to be interrupted
	cmd := perfbisectCmd(cache, append(args, "large")...)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		log.WriteString(sc.Text() + "\n")
		if strings.Contains(sc.Text(), "run 1:") { // the first run is stored, the second starts
			time.Sleep(3 * time.Second)
			cmd.Process.Signal(syscall.SIGTERM)
			break
		}
	}
	go func() { // keep draining
		for sc.Scan() {
			log.WriteString(sc.Text() + "\n")
		}
	}()
	err := cmd.Wait()
	if err == nil {
		t.Fatalf("measure finished before SIGTERM:\n%s", log.String())
	}
	if out, _ := exec.Command("pgrep", "-f", "mariadbd.*"+cache).Output(); len(out) > 0 {
		t.Errorf("mariadbd survived perfbisect: pids %s", out)
		exec.Command("pkill", "-9", "-f", "mariadbd.*"+cache).Run()
	}
	s, err := store.Open(context.Background(), filepath.Join(cache, "perfbisect", "perfbisect.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	runs, _ := s.Runs(context.Background(), store.RunFilter{})
	if len(runs) != 1 {
		t.Errorf("%d runs stored, want only the finished first one\n%s", len(runs), log.String())
	}
	for _, r := range runs {
		if r.Status != store.RunOK || r.Duration < 5*time.Second || len(r.Series) < 5 {
			t.Errorf("a partial run was stored: %+v", r)
		}
	}
}
