package pointselect

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// testServer returns the socket of the mariadbd that scripts/test.sh
// started, skipping (or failing under CI=true) without one.
func testServer(t *testing.T) string {
	t.Helper()
	sock := os.Getenv("PERFBISECT_TEST_MYSQL_SOCKET")
	if sock == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("PERFBISECT_TEST_MYSQL_SOCKET is unset (run scripts/test.sh)")
		}
		t.Skip("PERFBISECT_TEST_MYSQL_SOCKET is unset (run scripts/test.sh)")
	}
	return sock
}

// testDB creates a fresh database name on the test server and returns
// its config and an open handle; both go away with the test.
func testDB(t *testing.T, name string) (MySQLConfig, *sql.DB) {
	t.Helper()
	sock := testServer(t)
	root, err := OpenDB(MySQLConfig{Socket: sock, User: "root", DB: "mysql"})
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	ctx := context.Background()
	for _, q := range []string{"DROP DATABASE IF EXISTS " + name, "CREATE DATABASE " + name} {
		if _, err := root.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	cfg := MySQLConfig{Socket: sock, User: "root", DB: name}
	db, err := OpenDB(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		db.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name)
		db.Close()
	})
	return cfg, db
}

// sysbench runs the installed sysbench oltp_point_select against cfg.
func sysbench(t *testing.T, cfg MySQLConfig, args ...string) string {
	t.Helper()
	path, err := exec.LookPath("sysbench")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("sysbench is not installed")
		}
		t.Skip("sysbench is not installed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	full := append([]string{"oltp_point_select", "--mysql-socket=" + cfg.Socket,
		"--mysql-user=" + cfg.User, "--mysql-db=" + cfg.DB}, args...)
	cmd := exec.CommandContext(ctx, path, full...)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("sysbench %s: %v\n%s", strings.Join(full, " "), err, out)
	}
	return string(out)
}

func showCreateDB(t *testing.T, db *sql.DB, table string) string {
	t.Helper()
	var name, ddl string
	if err := db.QueryRow("SHOW CREATE TABLE "+table).Scan(&name, &ddl); err != nil {
		t.Fatal(err)
	}
	return autoIncRe.ReplaceAllString(ddl, "")
}

func TestPrepareMatchesSysbench(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		sbFlags []string
		cfg     PrepareConfig
	}{
		{"defaults, load data", nil, PrepareConfig{Method: LoadLocal}},
		{"defaults, insert", nil, PrepareConfig{Method: LoadInsert}},
		{"no auto_inc, secondary id, no k index", []string{"--auto_inc=off", "--secondary=on", "--create_secondary=off"},
			PrepareConfig{NoAutoInc: true, Secondary: true, NoSecondaryIndex: true, Method: LoadLocal}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sbCfg, sbDB := testDB(t, fmt.Sprintf("ps_sb%d", i))
			_, goDB := testDB(t, fmt.Sprintf("ps_go%d", i))
			const tables, size = 2, 5000
			sysbench(t, sbCfg, append(tt.sbFlags, fmt.Sprintf("--tables=%d", tables), fmt.Sprintf("--table-size=%d", size), "prepare")...)
			pc := tt.cfg
			pc.Tables, pc.TableSize, pc.Seed = tables, size, 11
			if _, err := Prepare(ctx, goDB, pc, nil); err != nil {
				t.Fatal(err)
			}
			for n := 1; n <= tables; n++ {
				table := fmt.Sprintf("sbtest%d", n)
				if want, got := showCreateDB(t, sbDB, table), showCreateDB(t, goDB, table); want != got {
					t.Errorf("SHOW CREATE TABLE %s differs:\nsysbench:\n%s\nours:\n%s", table, want, got)
				}
				checkRows(t, goDB, table, size)
			}
		})
	}
}

// checkRows verifies row count, id range and the shape of k, c and pad.
func checkRows(t *testing.T, db *sql.DB, table string, size int64) {
	t.Helper()
	var count, minID, maxID, minK, maxK, badC, badPad int64
	q := `SELECT COUNT(*), MIN(id), MAX(id), MIN(k), MAX(k),
		SUM(c NOT REGEXP '^([0-9]{11}-){9}[0-9]{11}$'), SUM(pad NOT REGEXP '^([0-9]{11}-){4}[0-9]{11}$') FROM ` + table
	if err := db.QueryRow(q).Scan(&count, &minID, &maxID, &minK, &maxK, &badC, &badPad); err != nil {
		t.Fatal(err)
	}
	if count != size || minID != 1 || maxID != size || minK < 1 || maxK > size || badC != 0 || badPad != 0 {
		t.Errorf("%s: count %d ids %d..%d k %d..%d bad c %d bad pad %d", table, count, minID, maxID, minK, maxK, badC, badPad)
	}
}

func TestPrepareKeepsGoodTablesAndRefusesBadOnes(t *testing.T) {
	ctx := context.Background()
	_, db := testDB(t, "ps_idem")
	pc := PrepareConfig{Tables: 2, TableSize: 3000, Seed: 5}
	if _, err := Prepare(ctx, db, pc, nil); err != nil {
		t.Fatal(err)
	}
	res, err := Prepare(ctx, db, pc, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, ts := range res.Tables {
		if ts.Action != "kept" {
			t.Errorf("second prepare: sbtest%d %s, want kept", ts.Table, ts.Action)
		}
	}
	if _, err := db.Exec("DELETE FROM sbtest2 WHERE id > 2990"); err != nil {
		t.Fatal(err)
	}
	if _, err := Prepare(ctx, db, pc, nil); err == nil || !strings.Contains(err.Error(), "2990 rows, want 3000") {
		t.Fatalf("prepare over a partial table: err = %v, want a row-count complaint", err)
	}
	if _, err := db.Exec("ALTER TABLE sbtest1 DROP INDEX k_1"); err != nil {
		t.Fatal(err)
	}
	if _, err := Prepare(ctx, db, pc, nil); err == nil || !strings.Contains(err.Error(), "different definition") {
		t.Fatalf("prepare over a table without k_1: err = %v, want a definition complaint", err)
	}
	pc.Force = true
	res, err = Prepare(ctx, db, pc, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, ts := range res.Tables {
		if ts.Action != "replaced" {
			t.Errorf("forced prepare: sbtest%d %s, want replaced", ts.Table, ts.Action)
		}
	}
	checkRows(t, db, "sbtest1", 3000)
	checkRows(t, db, "sbtest2", 3000)
	if err := Cleanup(ctx, db, 2, nil); err != nil {
		t.Fatal(err)
	}
	var n int
	db.QueryRow("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'ps_idem'").Scan(&n)
	if n != 0 {
		t.Errorf("%d tables left after cleanup", n)
	}
}

func globalStatus(t *testing.T, db *sql.DB, name string) int64 {
	t.Helper()
	var k string
	var v int64
	if err := db.QueryRow("SHOW GLOBAL STATUS LIKE '"+name+"'").Scan(&k, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestRunUsesServerPreparedStatements(t *testing.T) {
	ctx := context.Background()
	cfg, db := testDB(t, "ps_stmt")
	const tables, threads, events = 4, 16, 20000
	if _, err := Prepare(ctx, db, PrepareConfig{Tables: tables, TableSize: 10000, Seed: 1}, nil); err != nil {
		t.Fatal(err)
	}
	b, err := NewMySQL(cfg, tables)
	if err != nil {
		t.Fatal(err)
	}
	prep0, exec0 := globalStatus(t, db, "Com_stmt_prepare"), globalStatus(t, db, "Com_stmt_execute")
	res, err := Run(ctx, b, RunConfig{Threads: threads, Tables: tables, TableSize: 10000, Events: events, Seed: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	prep := globalStatus(t, db, "Com_stmt_prepare") - prep0
	exec := globalStatus(t, db, "Com_stmt_execute") - exec0
	if res.Events != events || exec != events || prep != threads*tables {
		t.Errorf("events %d, Com_stmt_execute +%d, Com_stmt_prepare +%d; want %d, %d, %d",
			res.Events, exec, prep, events, events, threads*tables)
	}
	if res.Errors != 0 || res.Reconnects != 0 || res.TPS <= 0 || res.Latency.Min <= 0 || res.Latency.P95 < res.Latency.Min {
		t.Errorf("implausible result: %+v", res)
	}
}

func TestRunSurvivesKilledConnection(t *testing.T) {
	ctx := context.Background()
	cfg, db := testDB(t, "ps_kill")
	if _, err := Prepare(ctx, db, PrepareConfig{Tables: 2, TableSize: 10000, Seed: 1}, nil); err != nil {
		t.Fatal(err)
	}
	b, err := NewMySQL(cfg, 2)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxIdleConns(0) // close Prepare's pooled connections: only workers stay in ps_kill
	killed := make(chan error, 1)
	go func() {
		time.Sleep(time.Second)
		// a second connection kills one worker's connection mid-run
		var id int64
		err := db.QueryRow(`SELECT id FROM information_schema.processlist
			WHERE db = 'ps_kill' AND id <> CONNECTION_ID() ORDER BY id DESC LIMIT 1`).Scan(&id)
		if err == nil {
			_, err = db.Exec(fmt.Sprintf("KILL CONNECTION %d", id))
		}
		killed <- err
	}()
	res, err := Run(ctx, b, RunConfig{Threads: 8, Tables: 2, TableSize: 10000, Time: 3 * time.Second, Seed: 1}, nil)
	if kerr := <-killed; kerr != nil {
		t.Fatalf("killing a worker connection: %v", kerr)
	}
	if err != nil {
		t.Fatalf("run did not survive a killed connection: %v", err)
	}
	if res.Reconnects < 1 || res.Events == 0 {
		t.Errorf("reconnects %d events %d, want at least one reconnect and events", res.Reconnects, res.Events)
	}
}

// numbers matches every number in a report line.
var numbers = regexp.MustCompile(`[0-9]+(\.[0-9]+)?`)

// skeleton replaces numbers by N and collapses the padding after them
// (its width follows the numbers), so two reports compare by layout.
func skeleton(s string) string {
	s = numbers.ReplaceAllString(s, "N")
	s = regexp.MustCompile(`N {2,}`).ReplaceAllString(s, "N ")
	return regexp.MustCompile(` {2,}N`).ReplaceAllString(s, " N")
}

func TestOutputLayoutMatchesSysbench(t *testing.T) {
	ctx := context.Background()
	cfg, db := testDB(t, "ps_out")
	if _, err := Prepare(ctx, db, PrepareConfig{Tables: 2, TableSize: 10000, Seed: 1}, nil); err != nil {
		t.Fatal(err)
	}
	sb := sysbench(t, cfg, "--tables=2", "--table-size=10000", "--threads=4", "--time=2",
		"--report-interval=1", "run")
	b, err := NewMySQL(cfg, 2)
	if err != nil {
		t.Fatal(err)
	}
	var progress, out strings.Builder
	res, err := Run(ctx, b, RunConfig{Threads: 4, Tables: 2, TableSize: 10000, Time: 2 * time.Second,
		ReportInterval: time.Second}, &progress)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteSummary(&out, res, false); err != nil {
		t.Fatal(err)
	}
	// interval lines: same layout line by line
	sbLines := regexp.MustCompile(`(?m)^\[ .*$`).FindAllString(sb, -1)
	ourLines := strings.Split(strings.TrimSpace(progress.String()), "\n")
	if len(sbLines) == 0 || len(ourLines) < 1 {
		t.Fatalf("no interval lines: sysbench %q ours %q", sbLines, ourLines)
	}
	for _, l := range ourLines {
		if skeleton(l) != skeleton(sbLines[0]) {
			t.Errorf("interval line layout differs:\nsysbench: %s\nours:     %s", sbLines[0], l)
		}
	}
	// summary: identical from "SQL statistics:" on, numbers aside
	i := strings.Index(sb, "SQL statistics:")
	if i < 0 {
		t.Fatalf("no summary in sysbench output:\n%s", sb)
	}
	if want, got := skeleton(strings.TrimSpace(sb[i:])), skeleton(strings.TrimSpace(out.String())); want != got {
		t.Errorf("summary layout differs:\nsysbench:\n%s\nours:\n%s", sb[i:], out.String())
	}
	// and the parser a sysbench user has parses ours to our numbers
	m := regexp.MustCompile(`transactions:\s+(\d+)\s+\(([0-9.]+) per sec\.\)`).FindStringSubmatch(out.String())
	if m == nil || m[1] != fmt.Sprint(res.Events) || m[2] != fmt.Sprintf("%.2f", res.TPS) {
		t.Errorf("transactions line %q does not carry events %d and tps %.2f", m, res.Events, res.TPS)
	}
}
