package runner

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"

	"github.com/perfbisect/perfbisect/internal/build"
	"github.com/perfbisect/perfbisect/internal/pointselect"
)

// A Protocol says how one build is measured.
type Protocol struct {
	// Run is the workload of each repeat (threads, tables, table size,
	// time, warm-up, distribution).
	Run pointselect.RunConfig
	// Prepare is how the data is made; its Tables and TableSize follow Run.
	Prepare pointselect.PrepareConfig
	// Restart restarts the server before every repeat after the first, so
	// each repeat starts from a cold buffer pool and a fresh process (the
	// default, true in DefaultProtocol); false keeps one server for all.
	Restart bool
	// ClientProcs is the GOMAXPROCS of the client during a run; 0 means
	// pointselect.ClientProcs's default (a quarter of the CPUs).
	ClientProcs int
}

// DefaultProtocol is the protocol of a real bisect: sysbench's seed
// configuration (8 tables x 1M rows, 128 threads), 60 s runs after a
// 10 s warm-up, the server restarted between repeats.
var DefaultProtocol = Protocol{
	Run: pointselect.RunConfig{Threads: 128, Tables: 8, TableSize: 1_000_000,
		Time: 60 * time.Second, Warmup: 10 * time.Second},
	Restart: true,
}

// DataKey identifies a prepared dataset: runs with equal keys start from
// equal data.
func (p Protocol) DataKey() string {
	b, _ := json.Marshal(struct {
		Tables    int
		TableSize int64
		Prepare   pointselect.PrepareConfig
	}{p.Run.Tables, p.Run.TableSize, p.Prepare})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// A Bench measures installations on one prepared dataset. The data is
// prepared once per DataKey into a golden datadir under WorkDir; each
// build runs on a copy of it (cp --reflink=auto), and a build that cannot
// open the copy prepares its own data, saying so.
type Bench struct {
	// WorkDir holds golden datadirs and per-build copies.
	WorkDir string
	// Server is the template of every server: buffer pool, AHI, options,
	// CPU pinning. Basedir, Mariadbd, Datadir and RunDir are set per build.
	Server ServerConfig
	// Protocol is how each build is measured.
	Protocol Protocol
	// Progress receives progress lines (stderr); nil for none.
	Progress io.Writer
}

// BufferPoolFor sizes a buffer pool to hold the data of tables x rows with
// room to spare: about 250 bytes a row of sysbench's schema plus 30 %,
// rounded up to 128 MiB, at least 128 MiB.
func BufferPoolFor(tables int, rows int64) int64 {
	const step = 128 << 20
	need := int64(float64(int64(tables)*rows*250) * 1.3)
	return max(step, (need+step-1)/step*step)
}

func (b *Bench) logf(format string, args ...any) {
	if b.Progress != nil {
		fmt.Fprintf(b.Progress, format+"\n", args...)
	}
}

// A Session is one build being measured: its own datadir copy and, while
// a repeat runs (or between repeats without Restart), its server.
type Session struct {
	b      *Bench
	cfg    ServerConfig
	server *Server
	runs   int
}

// Open prepares a session for the installation at basedir (mariadbd: its
// server binary, "" for the default place under basedir).
func (b *Bench) Open(ctx context.Context, basedir, mariadbd, name string) (*Session, error) {
	golden, err := b.golden(ctx, basedir, mariadbd)
	if err != nil {
		return nil, err
	}
	// The pid keeps two processes measuring one commit out of each other's way.
	cfg := b.serverConfig(basedir, mariadbd, filepath.Join(b.WorkDir, "run", fmt.Sprintf("%s.%d", name, os.Getpid()), "data"))
	os.RemoveAll(cfg.Datadir)
	os.RemoveAll(cfg.RunDir)
	if err := copyTree(ctx, golden, cfg.Datadir); err != nil {
		return nil, err
	}
	s := &Session{b: b, cfg: cfg}
	if err := s.start(ctx); err != nil {
		var crash *CrashError
		if !errors.As(err, &crash) {
			return nil, err
		}
		b.logf("%s cannot open the prepared data (%s); preparing fresh data for it", name, crash.Exit)
		os.RemoveAll(cfg.Datadir)
		if err := b.prepareInto(ctx, cfg); err != nil {
			return nil, err
		}
		if err := s.start(ctx); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (b *Bench) serverConfig(basedir, mariadbd, datadir string) ServerConfig {
	cfg := b.Server
	cfg.Basedir, cfg.Mariadbd, cfg.Datadir, cfg.RunDir = basedir, mariadbd, datadir, datadir+".run"
	run := b.Protocol.Run.WithDefaults()
	if cfg.BufferPool == 0 {
		cfg.BufferPool = BufferPoolFor(run.Tables, run.TableSize)
	}
	if cfg.MaxConnections == 0 {
		cfg.MaxConnections = run.Threads + 50
	}
	return cfg
}

// golden returns the prepared datadir for the protocol's data, making it
// with this installation when it does not exist yet. Several processes
// on one WorkDir take turns (a file lock per dataset): the first
// prepares, the others wait and then find the data prepared.
func (b *Bench) golden(ctx context.Context, basedir, mariadbd string) (string, error) {
	dir := filepath.Join(b.WorkDir, "data", b.Protocol.DataKey())
	if fileExists(filepath.Join(dir, ".perfbisect-complete")) {
		return dir, nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	unlock, err := build.LockFile(ctx, dir+".lock", "another perfbisect preparing the data in "+dir)
	if err != nil {
		return "", err
	}
	defer unlock()
	if fileExists(filepath.Join(dir, ".perfbisect-complete")) {
		b.logf("using the data another perfbisect prepared in %s", dir)
		return dir, nil
	}
	os.RemoveAll(dir)
	cfg := b.serverConfig(basedir, mariadbd, dir+".tmp")
	os.RemoveAll(cfg.Datadir)
	if err := b.prepareInto(ctx, cfg); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(cfg.Datadir, ".perfbisect-complete"), nil, 0o644); err != nil {
		return "", err
	}
	os.RemoveAll(cfg.RunDir)
	return dir, os.Rename(cfg.Datadir, dir)
}

// prepareInto makes a datadir with install-db and loads the workload's
// tables, then stops the server cleanly.
func (b *Bench) prepareInto(ctx context.Context, cfg ServerConfig) error {
	run := b.Protocol.Run.WithDefaults()
	b.logf("preparing %d tables x %d rows in %s", run.Tables, run.TableSize, cfg.Datadir)
	if err := InstallDB(ctx, cfg); err != nil {
		return err
	}
	srv, err := Start(ctx, cfg)
	if err != nil {
		return err
	}
	defer srv.Stop(context.Background())
	admin, err := sql.Open("mysql", srv.DSN(""))
	if err != nil {
		return err
	}
	_, err = admin.ExecContext(ctx, "CREATE DATABASE IF NOT EXISTS sbtest")
	admin.Close()
	if err != nil {
		return fmt.Errorf("creating database sbtest: %w", err)
	}
	db, err := pointselect.OpenDB(pointselect.MySQLConfig{Socket: cfg.Socket(), User: "root", DB: "sbtest"})
	if err != nil {
		return err
	}
	defer db.Close()
	pc := b.Protocol.Prepare
	pc.Tables, pc.TableSize = run.Tables, run.TableSize
	if pc.Seed == 0 {
		pc.Seed = 1 // the same data for every build
	}
	if _, err := pointselect.Prepare(ctx, db, pc, b.Progress); err != nil {
		return fmt.Errorf("preparing data: %w", err)
	}
	return srv.Stop(ctx)
}

func (s *Session) start(ctx context.Context) error {
	srv, err := Start(ctx, s.cfg)
	if err != nil {
		return err
	}
	s.server = srv
	return nil
}

// Run takes one repeat: (re)starts the server as the protocol says, warms
// up, runs the workload, and checks the server survived. A server that
// died is a *CrashError.
func (s *Session) Run(ctx context.Context) (*pointselect.Result, error) {
	if s.server != nil && s.runs > 0 && s.b.Protocol.Restart {
		if err := s.server.Stop(ctx); err != nil {
			return nil, err
		}
		s.server = nil
	}
	if s.server == nil {
		if err := s.start(ctx); err != nil {
			return nil, err
		}
	}
	s.runs++
	run := s.b.Protocol.Run.WithDefaults()
	backend, err := pointselect.NewMySQL(pointselect.MySQLConfig{Socket: s.cfg.Socket(), User: "root", DB: "sbtest"}, run.Tables)
	if err != nil {
		return nil, err
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(pointselect.ClientProcs(s.b.Protocol.ClientProcs)))
	res, err := pointselect.Run(ctx, backend, run, nil)
	if crash := s.server.Crashed(); crash != nil {
		return nil, crash
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// Close stops the server and removes the session's datadir copy.
func (s *Session) Close() error {
	var err error
	if s.server != nil {
		err = s.server.Stop(context.Background())
	}
	os.RemoveAll(s.cfg.Datadir)
	os.RemoveAll(s.cfg.RunDir)
	return err
}

// copyTree copies a datadir with cp --reflink=auto: a copy-on-write clone
// where the filesystem can, a plain copy elsewhere.
func copyTree(ctx context.Context, from, to string) error {
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	out, err := exec.CommandContext(ctx, "cp", "-a", "--reflink=auto", from, to).CombinedOutput()
	if err != nil {
		return fmt.Errorf("copying %s: %v: %s", from, err, out)
	}
	return nil
}
