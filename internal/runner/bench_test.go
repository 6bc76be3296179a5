package runner

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/internal/pointselect"
)

func smallBench(t *testing.T) *Bench {
	return &Bench{
		WorkDir: t.TempDir(),
		Server:  ServerConfig{Options: []string{"innodb_log_file_size=32M"}, StopGrace: 30 * time.Second},
		Protocol: Protocol{
			Run: pointselect.RunConfig{Threads: 4, Tables: 2, TableSize: 2000, Time: time.Second,
				Warmup: 200 * time.Millisecond, Seed: 7},
			Restart: true,
		},
	}
}

func TestBenchPreparesOnceAndRestartsBetweenRepeats(t *testing.T) {
	needMariadbd(t)
	ctx := context.Background()
	b := smallBench(t)
	s, err := b.Open(ctx, "/usr", "", "first")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for i := 0; i < 2; i++ {
		res, err := s.Run(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if res.Events == 0 || res.TPS <= 0 || res.Errors != 0 {
			t.Errorf("repeat %d: %d events, %.0f tps, %d errors", i, res.Events, res.TPS, res.Errors)
		}
		pids = append(pids, s.server.Pid())
	}
	if pids[0] == pids[1] {
		t.Errorf("the server was not restarted between repeats (pid %d)", pids[0])
	}
	datadir := s.cfg.Datadir
	if err := s.Close(); err != nil {
		t.Error(err)
	}
	if alive(pids[1]) {
		t.Errorf("mariadbd %d outlived Close", pids[1])
	}
	if _, err := os.Stat(datadir); !os.IsNotExist(err) {
		t.Errorf("the session's datadir copy %s was kept", datadir)
	}
	golden := filepath.Join(b.WorkDir, "data", b.Protocol.DataKey())
	stamp, err := os.Stat(filepath.Join(golden, ".perfbisect-complete"))
	if err != nil {
		t.Fatalf("no golden datadir: %v", err)
	}
	// A second build reuses the prepared data instead of preparing again.
	s2, err := b.Open(ctx, "/usr", "", "second")
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	again, _ := os.Stat(filepath.Join(golden, ".perfbisect-complete"))
	if !again.ModTime().Equal(stamp.ModTime()) {
		t.Error("the golden datadir was prepared twice")
	}
	if res, err := s2.Run(ctx); err != nil || res.Events == 0 {
		t.Errorf("run on the copied data: %v", err)
	}
}

func TestBufferPoolFor(t *testing.T) {
	cases := []struct {
		tables int
		rows   int64
		want   int64
	}{
		{1, 1000, 128 << 20},
		{8, 1_000_000, 2560 << 20}, // 2.6e9 bytes rounds up to 20 x 128 MiB
	}
	for _, c := range cases {
		if got := BufferPoolFor(c.tables, c.rows); got != c.want {
			t.Errorf("BufferPoolFor(%d, %d) = %d MiB, want %d MiB", c.tables, c.rows, got>>20, c.want>>20)
		}
	}
}
