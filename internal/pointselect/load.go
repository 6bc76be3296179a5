package pointselect

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"sync/atomic"

	"github.com/go-sql-driver/mysql"
)

var autoIncRe = regexp.MustCompile(` AUTO_INCREMENT=\d+`)

// showCreate returns SHOW CREATE TABLE of sbtest<n> with the
// AUTO_INCREMENT counter and the TEMPORARY keyword removed, so a table
// and its reference compare equal.
func showCreate(ctx context.Context, conn *sql.Conn, n int) (string, error) {
	var name, ddl string
	err := conn.QueryRowContext(ctx, "SHOW CREATE TABLE sbtest"+strconv.Itoa(n)).Scan(&name, &ddl)
	if err != nil {
		return "", err
	}
	ddl = autoIncRe.ReplaceAllString(ddl, "")
	return regexp.MustCompile(`^CREATE TEMPORARY TABLE`).ReplaceAllString(ddl, "CREATE TABLE"), nil
}

// checkTable decides what to do with sbtest<n>: "created" when it does
// not exist, "kept" when its DDL (compared with a temporary reference
// table built from our DDL on the same server) and row count are right,
// "replaced" (after dropping it) when they are wrong and cfg.Force is set;
// otherwise an error that says what is wrong.
func checkTable(ctx context.Context, db *sql.DB, cfg PrepareConfig, n int) (string, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return "", fmt.Errorf("connecting to check sbtest%d: %w", n, err)
	}
	defer conn.Close()
	have, err := showCreate(ctx, conn, n)
	if isNoTable(err) {
		return "created", nil
	}
	if err != nil {
		return "", fmt.Errorf("reading sbtest%d: %w", n, err)
	}
	if _, err := conn.ExecContext(ctx, cfg.createSQL(n, true)); err != nil {
		return "", fmt.Errorf("creating reference for sbtest%d: %w", n, err)
	}
	want, err := showCreate(ctx, conn, n)
	if _, derr := conn.ExecContext(ctx, "DROP TEMPORARY TABLE sbtest"+strconv.Itoa(n)); derr != nil && err == nil {
		err = derr
	}
	if err != nil {
		return "", fmt.Errorf("reading reference for sbtest%d: %w", n, err)
	}
	problem := ""
	if have != want {
		problem = fmt.Sprintf("a different definition:\n%s\nwant:\n%s", have, want)
	} else {
		var rows int64
		if err := conn.QueryRowContext(ctx, "SELECT COUNT(*) FROM sbtest"+strconv.Itoa(n)).Scan(&rows); err != nil {
			return "", fmt.Errorf("counting sbtest%d: %w", n, err)
		}
		if rows == cfg.TableSize {
			return "kept", nil
		}
		problem = fmt.Sprintf("%d rows, want %d", rows, cfg.TableSize)
	}
	if !cfg.Force {
		return "", fmt.Errorf("table sbtest%d exists with %s; use --force to replace it", n, problem)
	}
	if _, err := conn.ExecContext(ctx, "DROP TABLE sbtest"+strconv.Itoa(n)); err != nil {
		return "", fmt.Errorf("dropping sbtest%d: %w", n, err)
	}
	return "replaced", nil
}

// loadTable creates and fills sbtest<n> on one connection with unique
// and foreign-key checks off, each statement in autocommit (measured on
// MariaDB 10.11: one explicit transaction around the load, which turns on
// InnoDB's buffered bulk insert, took twice as long), then creates k_<n>.
func loadTable(ctx context.Context, db *sql.DB, cfg PrepareConfig, method string, n int, progress io.Writer) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("connecting to load sbtest%d: %w", n, err)
	}
	defer conn.Close()
	table := "sbtest" + strconv.Itoa(n)
	exec := func(what, q string) error {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s %s: %w", what, table, err)
		}
		return nil
	}
	if err := exec("session settings for", "SET SESSION unique_checks=0, foreign_key_checks=0"); err != nil {
		return err
	}
	fmt.Fprintf(progress, "Creating table '%s'...\n", table)
	if err := exec("creating", cfg.createSQL(n, false)); err != nil {
		return err
	}
	if cfg.TableSize > 0 {
		fmt.Fprintf(progress, "Inserting %d records into '%s'\n", cfg.TableSize, table)
		g := &rowGen{k: mustDist(cfg.Rand, uint32(cfg.TableSize))}
		g.rng.Seed(workerSeed(cfg.Seed, n))
		if method == LoadLocal {
			err = loadData(ctx, conn, cfg, table, g)
		} else {
			err = insertRows(ctx, conn, cfg, table, g)
		}
		if err != nil {
			return err
		}
	}
	if !cfg.NoSecondaryIndex {
		fmt.Fprintf(progress, "Creating a secondary index on '%s'...\n", table)
		if err := exec("indexing", fmt.Sprintf("CREATE INDEX k_%d ON %s(k)", n, table)); err != nil {
			return err
		}
	}
	return exec("resetting session of", "SET SESSION unique_checks=1, foreign_key_checks=1")
}

// mustDist returns the k distribution over [1, size]; cfg was validated.
func mustDist(c RandConfig, size uint32) *Dist {
	d, err := NewDist(c, 1, max(size, 1))
	if err != nil {
		panic(err)
	}
	return d
}

var readerSeq atomic.Int64

// loadData streams the rows through LOAD DATA LOCAL INFILE.
func loadData(ctx context.Context, conn *sql.Conn, cfg PrepareConfig, table string, g *rowGen) error {
	name := fmt.Sprintf("pointselect-%s-%d", table, readerSeq.Add(1))
	mysql.RegisterReaderHandler(name, func() io.Reader {
		return &csvReader{g: g, next: 1, n: cfg.TableSize, withID: cfg.NoAutoInc}
	})
	defer mysql.DeregisterReaderHandler(name)
	cols := "(k, c, pad)"
	if cfg.NoAutoInc {
		cols = "(id, k, c, pad)"
	}
	q := fmt.Sprintf("LOAD DATA LOCAL INFILE 'Reader::%s' INTO TABLE %s CHARACTER SET latin1 "+
		"FIELDS TERMINATED BY ',' LINES TERMINATED BY '\\n' %s", name, table, cols)
	if _, err := conn.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("loading %s: %w", table, err)
	}
	return nil
}

// insertRows sends sysbench's multi-row INSERTs of at most 512 KiB.
func insertRows(ctx context.Context, conn *sql.Conn, cfg PrepareConfig, table string, g *rowGen) error {
	prefix := "INSERT INTO " + table + "(k, c, pad) VALUES"
	if cfg.NoAutoInc {
		prefix = "INSERT INTO " + table + "(id, k, c, pad) VALUES"
	}
	buf := make([]byte, 0, bulkInsertSz+512)
	buf = append(buf, prefix...)
	var row []byte
	rows := 0
	flush := func() error {
		if rows == 0 {
			return nil
		}
		if _, err := conn.ExecContext(ctx, string(buf)); err != nil {
			return fmt.Errorf("inserting into %s: %w", table, err)
		}
		buf, rows = append(buf[:0], prefix...), 0
		return nil
	}
	for id := int64(1); id <= cfg.TableSize; id++ {
		row = g.appendValues(row[:0], id, cfg.NoAutoInc)
		extra := len(row) + 1
		if rows > 0 {
			extra++
		}
		if len(buf)+extra > bulkInsertSz {
			if err := flush(); err != nil {
				return err
			}
		}
		if rows > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, row...)
		rows++
	}
	return flush()
}
