package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"modernc.org/sqlite" // registers the "sqlite" database/sql driver
	sqlite3 "modernc.org/sqlite/lib"
)

// A dialect is what differs between the two backends. The SQL itself is
// shared: written with ? placeholders, rebound to $n for PostgreSQL.
type dialect int

const (
	sqliteDialect dialect = iota
	postgresDialect
)

func (d dialect) String() string {
	if d == postgresDialect {
		return "postgres"
	}
	return "sqlite"
}

// rebind turns ? placeholders into $1, $2, … for PostgreSQL. The store's
// queries contain no literal question marks.
func (d dialect) rebind(query string) string {
	if d != postgresDialect || !strings.Contains(query, "?") {
		return query
	}
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isPostgresURL(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// libpqKeyRE matches the start of a libpq key=value connection string
// ("host=db user=alice password=..."): a known libpq keyword, then '='.
var libpqKeyRE = regexp.MustCompile(`^\s*(host|hostaddr|port|dbname|user|password|passfile|sslmode|sslrootcert|sslcert|sslkey|` +
	`connect_timeout|application_name|options|service|target_session_attrs|search_path|krbsrvname|gssencmode)\s*=`)

// isPostgresKeyValue reports whether dsn is a libpq key=value connection
// string, which pgx reads like a postgres:// URL.
func isPostgresKeyValue(dsn string) bool { return libpqKeyRE.MatchString(dsn) }

// passwordRE finds the password of a key=value connection string: a
// quoted value (with \' and \\ escapes) or a run of non-blanks.
var passwordRE = regexp.MustCompile(`(password\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s']\S*|'.*)`)

// openPostgres opens a pgx pool and exposes it through database/sql, so
// both backends share one code path.
func openPostgres(ctx context.Context, dsn string, opts Options) (*Store, error) {
	safe := redact(dsn)
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("--db %s: not a valid postgres URL or connection string: %s", safe, oneLine(scrub(err.Error(), dsn)))
	}
	cfg.ConnConfig.ConnectTimeout = opts.ConnectTimeout
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("--db %s: %s", safe, oneLine(scrub(err.Error(), dsn)))
	}
	pctx, cancel := context.WithTimeout(ctx, opts.ConnectTimeout)
	defer cancel()
	if err := pool.Ping(pctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("cannot reach postgres at %s: %s (is the server running? check --db or PERFBISECT_DB)",
			safe, oneLine(scrub(rootCause(err), dsn)))
	}
	desc := fmt.Sprintf("postgres %s:%d/%s", cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Database)
	return &Store{db: stdlib.OpenDBFromPool(pool), dialect: postgresDialect, desc: desc, closeFn: pool.Close}, nil
}

// openSQLite opens (creating if needed) a SQLite file in WAL mode, with a
// busy timeout and immediate write transactions so that several stores
// on one file (two perfbisect processes) wait for each other instead of
// failing.
func openSQLite(ctx context.Context, path string, opts Options) (*Store, error) {
	if opts.MustExist {
		if _, err := os.Stat(path); err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return nil, fmt.Errorf("no store at %s: %s (check --db or PERFBISECT_DB; `perfbisect db migrate` creates one)",
				path, oneLine(err.Error()))
		}
	} else if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("creating the store's folder: %w", err)
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(30000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("opening the store %s: %s", path, oneLine(err.Error()))
	}
	return &Store{db: db, dialect: sqliteDialect, desc: "sqlite " + path}, nil
}

// redact returns dsn with any password replaced by "xxxxx".
func redact(dsn string) string {
	if isPostgresKeyValue(dsn) {
		return passwordRE.ReplaceAllString(dsn, "${1}xxxxx")
	}
	u, err := url.Parse(dsn)
	if err != nil || u.User == nil {
		if err != nil && strings.Contains(dsn, "@") {
			return "(unparsable URL)" // may hold a password we cannot locate
		}
		return dsn
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

// scrub removes the password of dsn from msg, if it occurs there.
func scrub(msg, dsn string) string {
	if isPostgresKeyValue(dsn) {
		for _, m := range passwordRE.FindAllStringSubmatch(dsn, -1) {
			raw := m[2]
			if pw := unquoteLibpq(raw); pw != "" {
				msg = strings.ReplaceAll(msg, pw, "xxxxx")
			}
			if raw != "" {
				msg = strings.ReplaceAll(msg, raw, "xxxxx")
			}
		}
		return msg
	}
	u, err := url.Parse(dsn)
	if err != nil || u.User == nil {
		return msg
	}
	if pw, ok := u.User.Password(); ok && pw != "" {
		msg = strings.ReplaceAll(msg, pw, "xxxxx")
		msg = strings.ReplaceAll(msg, url.QueryEscape(pw), "xxxxx")
	}
	return msg
}

// unquoteLibpq returns a key=value value without its quotes and escapes.
func unquoteLibpq(v string) string {
	if !strings.HasPrefix(v, "'") {
		return v
	}
	v = strings.TrimSuffix(strings.TrimPrefix(v, "'"), "'")
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) {
			i++
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// rootCause returns the innermost message of a pgx connect error, which
// otherwise repeats the whole connection string.
func rootCause(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 && i+2 < len(msg) {
		return msg[i+2:]
	}
	return msg
}

// isUniqueViolation reports whether err is a unique or primary key
// violation, in either backend.
func isUniqueViolation(err error) bool {
	if err == nil {
		return false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code == "23505"
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		c := se.Code()
		return c == sqlite3.SQLITE_CONSTRAINT_UNIQUE || c == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
	}
	return false
}
