package pointselect

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sync"
	"time"

	"github.com/go-sql-driver/mysql"
)

var errEOF = io.EOF

// Load methods for PrepareConfig.Method.
const (
	LoadAuto     = "auto"      // LOAD DATA LOCAL when the server allows it, else INSERT
	LoadLocal    = "load-data" // LOAD DATA LOCAL INFILE from a generated stream
	LoadInsert   = "insert"    // sysbench's 512 KiB multi-row INSERTs
	bulkInsertSz = 512 * 1024  // sysbench BULK_PACKET_SIZE
)

// A PrepareConfig describes the tables to create (sysbench prepare).
type PrepareConfig struct {
	// Tables is --tables. Default 1.
	Tables int
	// TableSize is --table-size, rows per table. Default 10000.
	TableSize int64
	// Threads is the number of tables loaded in parallel, each over its
	// own connection. Default min(Tables, 8).
	Threads int
	// Rand is the distribution of column k (sysbench draws k with
	// --rand-type). Default DefaultRandConfig (special).
	Rand RandConfig
	// Seed seeds the data generator; 0 means from the current time.
	Seed uint64
	// NoAutoInc is --auto_inc=off: id is sent instead of AUTO_INCREMENT.
	NoAutoInc bool
	// Secondary is --secondary=on: id gets KEY xid instead of PRIMARY KEY.
	Secondary bool
	// NoSecondaryIndex is --create_secondary=off: no k_N index.
	NoSecondaryIndex bool
	// Engine is --mysql_storage_engine. Default "innodb".
	Engine string
	// Method is auto, load-data or insert. Default auto.
	Method string
	// Force replaces tables that exist with the wrong shape or size;
	// without it Prepare reports them and stops.
	Force bool
}

// withDefaults fills zero fields.
func (c PrepareConfig) withDefaults() PrepareConfig {
	c.Tables = cmp.Or(c.Tables, 1)
	c.TableSize = cmp.Or(c.TableSize, 10000)
	c.Threads = cmp.Or(c.Threads, min(c.Tables, 8))
	c.Engine = cmp.Or(c.Engine, "innodb")
	c.Method = cmp.Or(c.Method, LoadAuto)
	c.Seed = cmp.Or(c.Seed, uint64(time.Now().UnixNano()))
	c.Rand = c.Rand.withDefaults()
	return c
}

// Validate reports the first nonsensical field, after defaults.
func (c PrepareConfig) Validate() error {
	c = c.withDefaults()
	switch {
	case c.Tables < 1:
		return fmt.Errorf("tables %d: must be >= 1", c.Tables)
	case c.TableSize < 0 || c.TableSize > 1<<31-1:
		return fmt.Errorf("table-size %d: must be in 0..2147483647", c.TableSize)
	case c.Threads < 1:
		return fmt.Errorf("threads %d: must be >= 1", c.Threads)
	case !regexp.MustCompile(`^[A-Za-z0-9_]+$`).MatchString(c.Engine):
		return fmt.Errorf("storage engine %q: not a plain name", c.Engine)
	case c.Method != LoadAuto && c.Method != LoadLocal && c.Method != LoadInsert:
		return fmt.Errorf("load method %q: want auto, load-data or insert", c.Method)
	}
	return c.Rand.Validate()
}

// A TableStatus says what Prepare did with one table.
type TableStatus struct {
	Table  int    `json:"table"`
	Action string `json:"action"` // "created", "kept" or "replaced"
}

// A PrepareResult reports a Prepare.
type PrepareResult struct {
	Tables   []TableStatus `json:"tables"`
	Method   string        `json:"method"`
	Duration time.Duration `json:"duration_ns"`
}

// createSQL returns sysbench's CREATE TABLE for table n.
func (c PrepareConfig) createSQL(n int, temporary bool) string {
	idDef, idIndex := "INTEGER NOT NULL AUTO_INCREMENT", "PRIMARY KEY"
	if c.NoAutoInc {
		idDef = "INTEGER NOT NULL"
	}
	if c.Secondary {
		idIndex = "KEY xid"
	}
	kind, kIndex := "TABLE", ""
	if temporary {
		kind = "TEMPORARY TABLE"
		if !c.NoSecondaryIndex {
			kIndex = fmt.Sprintf(",\n  KEY k_%d (k)", n)
		}
	}
	return fmt.Sprintf("CREATE %s sbtest%d(\n  id %s,\n  k INTEGER DEFAULT '0' NOT NULL,\n"+
		"  c CHAR(120) DEFAULT '' NOT NULL,\n  pad CHAR(60) DEFAULT '' NOT NULL,\n  %s (id)%s\n) /*! ENGINE = %s */ ",
		kind, n, idDef, idIndex, kIndex, c.Engine)
}

// Prepare creates and loads sbtest1..Tables like sysbench prepare: the
// same DDL, k from the configured distribution, c and pad random digit
// groups, index k_N created after the load. Tables are loaded in
// parallel, with unique and foreign-key checks off. A table that already has
// the right shape and row count is kept; a wrong one is an error unless
// Force. Progress lines in sysbench's wording go to progress.
func Prepare(ctx context.Context, db *sql.DB, cfg PrepareConfig, progress io.Writer) (*PrepareResult, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	if progress == nil {
		progress = io.Discard
	}
	start := time.Now()
	method, err := chooseMethod(ctx, db, cfg.Method)
	if err != nil {
		return nil, err
	}
	res := &PrepareResult{Method: method}
	var todo []int
	for n := 1; n <= cfg.Tables; n++ {
		action, err := checkTable(ctx, db, cfg, n)
		if err != nil {
			return nil, err
		}
		res.Tables = append(res.Tables, TableStatus{Table: n, Action: action})
		if action == "kept" {
			fmt.Fprintf(progress, "Table 'sbtest%d' exists with %d rows, kept\n", n, cfg.TableSize)
			continue
		}
		todo = append(todo, n)
	}
	if err := loadTables(ctx, db, cfg, method, todo, progress); err != nil {
		return nil, err
	}
	res.Duration = time.Since(start)
	return res, nil
}

// chooseMethod resolves auto: LOAD DATA LOCAL when @@local_infile is on.
func chooseMethod(ctx context.Context, db *sql.DB, m string) (string, error) {
	if m != LoadAuto {
		return m, nil
	}
	var on bool
	if err := db.QueryRowContext(ctx, "SELECT @@local_infile").Scan(&on); err != nil {
		return "", fmt.Errorf("reading @@local_infile: %w", err)
	}
	if on {
		return LoadLocal, nil
	}
	return LoadInsert, nil
}

// loadTables loads the tables in todo with cfg.Threads connections.
func loadTables(ctx context.Context, db *sql.DB, cfg PrepareConfig, method string, todo []int, progress io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan int)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	pw := &lockedWriter{w: progress}
	for i := 0; i < min(cfg.Threads, len(todo)); i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range jobs {
				if err := loadTable(ctx, db, cfg, method, n, pw); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					cancel()
				}
			}
		}()
	}
feed:
	for _, n := range todo {
		select {
		case jobs <- n:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if firstErr == nil && ctx.Err() != nil {
		firstErr = ctx.Err()
	}
	return firstErr
}

// A lockedWriter serialises progress lines from parallel loaders.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Cleanup drops sbtest1..tables in order over one connection, like
// sysbench cleanup.
func Cleanup(ctx context.Context, db *sql.DB, tables int, progress io.Writer) error {
	if progress == nil {
		progress = io.Discard
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("connecting for cleanup: %w", err)
	}
	defer conn.Close()
	for n := 1; n <= tables; n++ {
		fmt.Fprintf(progress, "Dropping table 'sbtest%d'...\n", n)
		if _, err := conn.ExecContext(ctx, fmt.Sprintf("DROP TABLE IF EXISTS sbtest%d", n)); err != nil {
			return fmt.Errorf("dropping sbtest%d: %w", n, err)
		}
	}
	return nil
}

// isNoTable reports MySQL error 1146 (table doesn't exist).
func isNoTable(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && me.Number == 1146
}
