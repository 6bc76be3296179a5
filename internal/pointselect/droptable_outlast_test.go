package pointselect

import (
	"context"
	"strings"
	"testing"
	"time"
)

// A DROP TABLE that is still running when the run ends is reported as
// such, with what to do, not as a cancelled statement. Another
// connection holds a metadata lock on the drop table (an open
// transaction that read it), so the DROP waits past the run's end.
func TestDropOutlastingTheRunIsNamed(t *testing.T) {
	ctx := context.Background()
	cfg, db := testDB(t, "ps_outlast")
	if _, err := Prepare(ctx, db, PrepareConfig{Tables: 1, TableSize: 1000, Seed: 1}, nil); err != nil {
		t.Fatal(err)
	}
	b, err := NewMySQL(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	holder, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	locked := make(chan error, 1)
	go func() { // lock the drop table once it is prepared (its secondary index made)
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			var n int
			err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.statistics "+
				"WHERE table_schema = DATABASE() AND table_name = ? AND index_name <> 'PRIMARY'", DropTable(1)).Scan(&n)
			if err != nil || n == 0 {
				continue
			}
			if _, err := holder.ExecContext(ctx, "START TRANSACTION"); err != nil {
				locked <- err
				return
			}
			_, err = holder.ExecContext(ctx, "SELECT COUNT(*) FROM "+DropTable(1))
			locked <- err
			return
		}
		locked <- context.DeadlineExceeded
	}()
	run := RunConfig{Threads: 2, Tables: 1, TableSize: 1000, Time: 3 * time.Second, Seed: 1}
	_, err = DropStall(ctx, db, b, DropConfig{Run: run, DropRows: 1000, DropAt: 2 * time.Second, WarmThreads: 1}, nil)
	if lerr := <-locked; lerr != nil {
		t.Fatalf("locking the drop table: %v", lerr)
	}
	holder.ExecContext(ctx, "ROLLBACK")
	if err == nil || !strings.Contains(err.Error(), "outlasted the 3s run") || !strings.Contains(err.Error(), "lengthen --time") {
		t.Fatalf("err = %v; want the DROP named as outlasting the run", err)
	}
}
