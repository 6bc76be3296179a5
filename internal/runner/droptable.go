package runner

import (
	"context"
	"runtime"

	"github.com/perfbisect/perfbisect/internal/pointselect"
)

// DropBufferPool sizes a buffer pool for the drop-table-stall workload:
// the queried tables and the dropped table, so the dropped table is
// cached when it is dropped (as in the seed's 128 GB pool).
func DropBufferPool(run pointselect.RunConfig, dropRows int64) int64 {
	run = run.WithDefaults()
	return BufferPoolFor(run.Tables, run.TableSize) + BufferPoolFor(1, dropRows)
}

// RunDrop takes one repeat of the drop-table-stall workload on the
// session's build: (re)starts the server as the protocol says, then runs
// pointselect.DropStall with the protocol's tables, threads, time and
// warm-up (drop's Run is replaced by them), and checks the server
// survived. A server that died is a *CrashError.
func (s *Session) RunDrop(ctx context.Context, drop pointselect.DropConfig) (*pointselect.DropResult, error) {
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
	drop.Run = s.b.Protocol.Run
	mc := pointselect.MySQLConfig{Socket: s.cfg.Socket(), User: "root", DB: "sbtest"}
	backend, err := pointselect.NewMySQL(mc, drop.Run.WithDefaults().Tables)
	if err != nil {
		return nil, err
	}
	db, err := pointselect.OpenDB(mc)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(pointselect.ClientProcs(s.b.Protocol.ClientProcs)))
	res, err := pointselect.DropStall(ctx, db, backend, drop, s.b.Progress)
	if crash := s.server.Crashed(); crash != nil {
		return nil, crash
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}
