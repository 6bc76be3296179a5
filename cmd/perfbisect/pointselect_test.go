package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/perfbisect/perfbisect/internal/pointselect"
)

func TestPointselectUsageErrors(t *testing.T) {
	isolate(t)
	tests := [][]string{
		{"pointselect", "run", "--rand-type=nope"},
		{"pointselect", "run", "--time=0"},
		{"pointselect", "run", "--percentile=101"},
		{"pointselect", "prepare", "--auto_inc=maybe"},
		{"pointselect", "prepare", "--load-method=carrier-pigeon"},
		{"pointselect", "run", "--mysql-ignore-errors=12x"},
		{"pointselect", "cleanup", "extra"},
	}
	for _, args := range tests {
		_, _, err := execute(t, args...)
		var ue *usageError
		if !errors.As(err, &ue) {
			t.Errorf("%v: err = %v, want a usage error", args, err)
		}
	}
}

// TestPointselectCycle runs prepare, run --json and cleanup through the
// CLI against the test server, with sysbench's underscore spellings.
func TestPointselectCycle(t *testing.T) {
	isolate(t)
	sock := os.Getenv("PERFBISECT_TEST_MYSQL_SOCKET")
	if sock == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("PERFBISECT_TEST_MYSQL_SOCKET is unset (run scripts/test.sh)")
		}
		t.Skip("PERFBISECT_TEST_MYSQL_SOCKET is unset (run scripts/test.sh)")
	}
	root, err := pointselect.OpenDB(pointselect.MySQLConfig{Socket: sock, User: "root", DB: "mysql"})
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	ctx := context.Background()
	if _, err := root.ExecContext(ctx, "CREATE DATABASE IF NOT EXISTS ps_cli"); err != nil {
		t.Fatal(err)
	}
	defer root.ExecContext(ctx, "DROP DATABASE ps_cli")
	conn := []string{"pointselect", "--mysql-socket=" + sock, "--mysql_user=root", "--mysql-db=ps_cli", "--tables=2", "--table_size=2000"}
	_, stderr, err := execute(t, append(conn, "prepare", "--create_secondary=on")...)
	if err != nil || !strings.Contains(stderr, "Creating a secondary index on 'sbtest2'...") {
		t.Fatalf("prepare: %v\n%s", err, stderr)
	}
	stdout, stderr, err := execute(t, append(conn, "--threads=4", "--rand-seed=3", "run", "--time=2", "--report_interval=1", "--json")...)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, stderr)
	}
	var res struct {
		TPS, QPS           float64
		Errors, Reconnects *int64
		Latency            map[string]float64 `json:"latency_ms"`
		Intervals          []map[string]any
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("run --json printed %q: %v", stdout, err)
	}
	if res.TPS <= 0 || res.QPS != res.TPS || res.Errors == nil || res.Reconnects == nil ||
		res.Latency["p95"] <= 0 || res.Latency["min"] > res.Latency["max"] || len(res.Intervals) == 0 {
		t.Errorf("implausible JSON result: %s", stdout)
	}
	if !strings.Contains(stderr, "[ 1s ] thds: 4 tps: ") {
		t.Errorf("no interval line on stderr:\n%s", stderr)
	}
	if _, stderr, err = execute(t, append(conn, "cleanup")...); err != nil || !strings.Contains(stderr, "Dropping table 'sbtest2'...") {
		t.Fatalf("cleanup: %v\n%s", err, stderr)
	}
}
