package pointselect

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"
)

// A MySQLConfig says how to reach the server, with sysbench's option
// names and defaults.
type MySQLConfig struct {
	// Host is --mysql-host. Default "localhost". Ignored with Socket.
	Host string
	// Port is --mysql-port. Default 3306.
	Port int
	// Socket is --mysql-socket; when set the Unix socket is used.
	Socket string
	// User is --mysql-user. Default "sbtest".
	User string
	// Password is --mysql-password. Default empty.
	Password string
	// DB is --mysql-db. Default "sbtest".
	DB string
	// IgnoreErrors is --mysql-ignore-errors: server error numbers that
	// are counted and retried. nil means sysbench's default 1213,1020,1205.
	IgnoreErrors []uint16
	// IgnoreAll is --mysql-ignore-errors=all.
	IgnoreAll bool
}

// DefaultIgnoreErrors is sysbench's --mysql-ignore-errors default.
var DefaultIgnoreErrors = []uint16{1213, 1020, 1205}

// ParseIgnoreErrors parses a --mysql-ignore-errors value ("1213,1020" or
// "all"); all reports the "all" keyword.
func ParseIgnoreErrors(s string) (codes []uint16, all bool, err error) {
	codes = []uint16{}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		switch {
		case f == "":
		case strings.EqualFold(f, "all"):
			all = true
		default:
			n, err := strconv.ParseUint(f, 10, 16)
			if err != nil {
				return nil, false, fmt.Errorf("mysql-ignore-errors: %q is not an error number", f)
			}
			codes = append(codes, uint16(n))
		}
	}
	return codes, all, nil
}

// driverConfig maps c to go-sql-driver's Config: server-side prepared
// statements (no interpolation), LOAD DATA from readers allowed, driver
// logging off (lost connections are reported as counted reconnects).
func (c MySQLConfig) driverConfig() *mysql.Config {
	dc := mysql.NewConfig()
	dc.User = c.User
	if dc.User == "" {
		dc.User = "sbtest"
	}
	dc.Passwd = c.Password
	dc.DBName = c.DB
	if dc.DBName == "" {
		dc.DBName = "sbtest"
	}
	if c.Socket != "" {
		dc.Net, dc.Addr = "unix", c.Socket
	} else {
		host, port := c.Host, c.Port
		if host == "" {
			host = "localhost"
		}
		if port == 0 {
			port = 3306
		}
		dc.Net, dc.Addr = "tcp", net.JoinHostPort(host, strconv.Itoa(port))
	}
	dc.InterpolateParams = false
	dc.Logger = &mysql.NopLogger{}
	return dc
}

// Address describes where c points, for messages.
func (c MySQLConfig) Address() string {
	dc := c.driverConfig()
	return dc.Net + ":" + dc.Addr + "/" + dc.DBName
}

// OpenDB returns a database handle for Prepare and Cleanup (and for
// anything else that wants plain SQL); the caller closes it.
func OpenDB(c MySQLConfig) (*sql.DB, error) {
	conn, err := mysql.NewConnector(c.driverConfig())
	if err != nil {
		return nil, fmt.Errorf("mysql config for %s: %w", c.Address(), err)
	}
	return sql.OpenDB(conn), nil
}

// A MySQL is the Backend for a real MariaDB/MySQL server: every worker
// owns one driver connection with one server-side prepared statement per
// table (COM_STMT_PREPARE / COM_STMT_EXECUTE, sysbench --db-ps-mode=auto).
type MySQL struct {
	cfg       MySQLConfig
	tables    int
	connector driver.Connector
	ignore    [65536 / 64]uint64 // bitset of ignorable error numbers
}

// NewMySQL returns a Backend for the server c that prepares statements
// for tables sbtest1..tables on every connection.
func NewMySQL(c MySQLConfig, tables int) (*MySQL, error) {
	if tables < 1 {
		return nil, fmt.Errorf("tables %d: must be >= 1", tables)
	}
	conn, err := mysql.NewConnector(c.driverConfig())
	if err != nil {
		return nil, fmt.Errorf("mysql config for %s: %w", c.Address(), err)
	}
	m := &MySQL{cfg: c, tables: tables, connector: conn}
	codes := c.IgnoreErrors
	if codes == nil {
		codes = DefaultIgnoreErrors
	}
	for _, n := range codes {
		m.ignore[n/64] |= 1 << (n % 64)
	}
	return m, nil
}

// Simulated is false: the loop times a real server on the wall clock.
func (m *MySQL) Simulated() bool { return false }

// Connect opens worker's connection and prepares its statements.
func (m *MySQL) Connect(ctx context.Context, worker int) (Conn, error) {
	c := &mysqlConn{m: m, stmts: make([]driver.Stmt, m.tables+1), args: make([]driver.Value, 1)}
	if err := c.open(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// A mysqlConn is one worker's session.
type mysqlConn struct {
	m     *MySQL
	dc    driver.Conn
	stmts []driver.Stmt // index = table number
	args  []driver.Value
}

// open connects and prepares SELECT c FROM sbtestN WHERE id=? for every
// table.
func (c *mysqlConn) open(ctx context.Context) error {
	dc, err := c.m.connector.Connect(ctx)
	if err != nil {
		return fmt.Errorf("connecting to %s: %w", c.m.cfg.Address(), err)
	}
	c.dc = dc
	pc := dc.(driver.ConnPrepareContext)
	for t := 1; t <= c.m.tables; t++ {
		q := "SELECT c FROM sbtest" + strconv.Itoa(t) + " WHERE id=?"
		st, err := pc.PrepareContext(ctx, q)
		if err != nil {
			c.closeConn()
			return fmt.Errorf("preparing %q on %s: %w", q, c.m.cfg.Address(), err)
		}
		c.stmts[t] = st
	}
	return nil
}

func (c *mysqlConn) closeConn() {
	for i, st := range c.stmts {
		if st != nil {
			st.Close()
			c.stmts[i] = nil
		}
	}
	if c.dc != nil {
		c.dc.Close()
		c.dc = nil
	}
}

// PointSelect executes the prepared statement of table and discards the
// result set undecoded, like sysbench. A lost connection is reopened
// (retrying every millisecond until ctx ends) and reported as
// ErrReconnected; an ignorable server error as ErrIgnored.
func (c *mysqlConn) PointSelect(ctx context.Context, table int, id int64) (time.Duration, error) {
	c.args[0] = id
	//lint:ignore SA1019 the context-free path avoids a per-query watcher round trip
	rows, err := c.stmts[table].Query(c.args)
	if err == nil {
		err = rows.Close()
		if err == nil {
			return 0, nil
		}
	}
	return 0, c.handle(ctx, err)
}

// handle classifies err and reconnects after a connection loss.
func (c *mysqlConn) handle(ctx context.Context, err error) error {
	var me *mysql.MySQLError
	isServer := errors.As(err, &me)
	if isServer && !connLossCode(me.Number) {
		if c.m.cfg.IgnoreAll || c.m.ignore[me.Number/64]&(1<<(me.Number%64)) != 0 {
			return fmt.Errorf("%w: %w", ErrIgnored, err)
		}
		return fmt.Errorf("SELECT on %s: %w", c.m.cfg.Address(), err)
	}
	if !isServer && !isConnLoss(err) {
		return fmt.Errorf("SELECT on %s: %w", c.m.cfg.Address(), err)
	}
	c.closeConn()
	for {
		if rerr := c.open(ctx); rerr == nil {
			return fmt.Errorf("%w: %w", ErrReconnected, err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("reconnecting to %s: %w", c.m.cfg.Address(), ctx.Err())
		case <-time.After(time.Millisecond):
		}
	}
}

// connLossCode reports the client codes for a lost connection (2013,
// 2006, 2011, 2055) and the server's "killed"/"shutdown" codes (1927,
// 1053) that end a session.
func connLossCode(n uint16) bool {
	switch n {
	case 2013, 2006, 2011, 2055, 1927, 1053:
		return true
	}
	return false
}

// isConnLoss reports a broken connection as go-sql-driver surfaces it.
func isConnLoss(err error) bool {
	var ne net.Error
	return errors.Is(err, driver.ErrBadConn) || errors.Is(err, mysql.ErrInvalidConn) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.As(err, &ne)
}

// Close closes the statements and the connection.
func (c *mysqlConn) Close() error {
	c.closeConn()
	return nil
}
