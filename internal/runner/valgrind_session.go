package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/perfbisect/perfbisect/internal/callgrind"
	"github.com/perfbisect/perfbisect/internal/pointselect"
)

// An InstrSample is one sample of instructions per query.
type InstrSample struct {
	// Instructions is the server's instruction count (callgrind's Ir)
	// over the measured queries; PerQuery divides it by Queries.
	Instructions int64
	Queries      int
	PerQuery     float64
	// ProfilePath is the callgrind dump of the measured queries.
	ProfilePath string
	// Profile is the parsed dump.
	Profile   *callgrind.Profile
	StartedAt time.Time
	// Duration is the sample's wall time: warm-up, queries and dump.
	Duration time.Duration
}

// Measure takes one sample on s, a server started by StartCallgrind with
// dumpPrefix: the fixed sequence's warm-up, callgrind_control -z, the
// measured queries, callgrind_control -d, and the dump parsed. A server
// that dies is a *CrashError; one that takes longer than SampleTimeout
// is stopped and reported as a *CrashError too, with its log's tail.
func (c Callgrind) Measure(ctx context.Context, s *Server, seq pointselect.FixedConfig, dumpPrefix string) (*InstrSample, error) {
	c = c.WithDefaults()
	seq.Warmup, seq.Queries, seq.Seed = c.Warmup, c.Queries, c.Seed
	if err := seq.Validate(); err != nil {
		return nil, err
	}
	seq = seq.WithDefaults()
	start := time.Now()
	sctx, cancel := context.WithTimeout(ctx, c.SampleTimeout)
	defer cancel()
	path, err := c.measure(sctx, s, seq, dumpPrefix)
	if err != nil {
		if crash := s.Crashed(); crash != nil {
			return nil, crash
		}
		if ctx.Err() != nil {
			return nil, ctx.Err() // cancelled: no partial sample
		}
		if errors.Is(sctx.Err(), context.DeadlineExceeded) {
			s.Stop(context.Background())
			return nil, &CrashError{Mariadbd: s.cfg.Mariadbd, State: "under valgrind",
				Exit: fmt.Sprintf("hung: no sample within %s", c.SampleTimeout), LogTail: s.LogTail(15)}
		}
		return nil, err
	}
	p, err := callgrind.ParseFile(path)
	if err != nil {
		return nil, err
	}
	ir := p.Total("Ir")
	if ir <= 0 {
		where := "between zero and dump"
		if !c.WholeServer {
			where = "inside " + c.Toggle + " (is it the server's command dispatch function?)"
		}
		return nil, fmt.Errorf("callgrind dump %s: no instructions counted %s", path, where)
	}
	return &InstrSample{Instructions: ir, Queries: seq.Queries, PerQuery: float64(ir) / float64(seq.Queries),
		ProfilePath: path, Profile: p, StartedAt: start, Duration: time.Since(start)}, nil
}

// measure runs the sequence between zero and dump and returns the dump's path.
func (c Callgrind) measure(ctx context.Context, s *Server, seq pointselect.FixedConfig, dumpPrefix string) (string, error) {
	backend, err := pointselect.NewMySQL(pointselect.MySQLConfig{Socket: s.cfg.Socket(), User: "root", DB: "sbtest"}, seq.Tables)
	if err != nil {
		return "", err
	}
	zero := func(ctx context.Context) error { return c.control(ctx, s, "-z") }
	if err := pointselect.RunFixed(ctx, backend, seq, zero); err != nil {
		return "", err
	}
	before := lastDump(dumpPrefix, s.Pid())
	if err := c.control(ctx, s, "-d"); err != nil {
		return "", err
	}
	after := lastDump(dumpPrefix, s.Pid())
	if after.n == before.n {
		return "", fmt.Errorf("callgrind_control -d %d wrote no dump %s.%d.*", s.Pid(), dumpPrefix, s.Pid())
	}
	return after.path, nil
}

type dumpFile struct {
	path string
	n    int
}

// lastDump finds the highest-numbered dump prefix.<pid>.<n>.
func lastDump(prefix string, pid int) dumpFile {
	base := filepath.Base(prefix) + "." + strconv.Itoa(pid) + "."
	entries, _ := os.ReadDir(filepath.Dir(prefix))
	var last dumpFile
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), base)
		if !ok {
			continue
		}
		if n, err := strconv.Atoi(rest); err == nil && n > last.n {
			last = dumpFile{filepath.Join(filepath.Dir(prefix), e.Name()), n}
		}
	}
	return last
}

// A CallgrindSession measures one build's instructions per query: its
// own datadir copy of the prepared data, and while samples are taken its
// server under callgrind, restarted every SamplesPerStart samples.
type CallgrindSession struct {
	sess    *Session
	cg      Callgrind
	name    string
	server  *Server
	prefix  string // dump prefix of server
	samples int    // samples taken on server
}

// OpenCallgrind prepares a callgrind session for the installation at
// basedir, like Open: the data is prepared (once) and copied on a plain
// server, which is stopped again; samples start the server under
// valgrind. A missing valgrind is reported before anything is prepared.
func (b *Bench) OpenCallgrind(ctx context.Context, basedir, mariadbd, name string, cg Callgrind) (*CallgrindSession, error) {
	cg = cg.WithDefaults()
	if err := cg.Validate(); err != nil {
		return nil, err
	}
	if _, _, err := cg.tools(); err != nil {
		return nil, err
	}
	sess, err := b.Open(ctx, basedir, mariadbd, name)
	if err != nil {
		return nil, err
	}
	if err := sess.server.Stop(ctx); err != nil {
		sess.Close()
		return nil, err
	}
	sess.server = nil
	return &CallgrindSession{sess: sess, cg: cg, name: name}, nil
}

// Sample takes one sample, starting the server under valgrind when none
// runs. On any error the server is stopped.
func (c *CallgrindSession) Sample(ctx context.Context) (*InstrSample, error) {
	if c.server != nil && c.samples >= c.cg.SamplesPerStart {
		c.stopServer()
	}
	if c.server == nil {
		c.prefix = filepath.Join(c.cg.DumpDir, fmt.Sprintf("%s-%d", c.name, time.Now().UnixNano()))
		srv, err := StartCallgrind(ctx, c.sess.cfg, c.cg, c.prefix)
		if err != nil {
			return nil, err
		}
		c.server, c.samples = srv, 0
	}
	run := c.sess.b.Protocol.Run.WithDefaults()
	seq := pointselect.FixedConfig{Tables: run.Tables, TableSize: run.TableSize, Rand: run.Rand}
	s, err := c.cg.Measure(ctx, c.server, seq, c.prefix)
	if err != nil {
		c.stopServer()
		return nil, err
	}
	c.samples++
	return s, nil
}

// Pid is the pid of the server under valgrind, 0 when none runs.
func (c *CallgrindSession) Pid() int {
	if c.server == nil {
		return 0
	}
	return c.server.Pid()
}

// stopServer stops the server and removes the dump valgrind writes at
// exit (the whole run's, not a sample's).
func (c *CallgrindSession) stopServer() error {
	if c.server == nil {
		return nil
	}
	err := c.server.Stop(context.Background())
	os.Remove(c.prefix + "." + strconv.Itoa(c.server.Pid()))
	c.server = nil
	return err
}

// Close stops the server and removes the datadir copy; the dumps stay.
func (c *CallgrindSession) Close() error {
	return errors.Join(c.stopServer(), c.sess.Close())
}
