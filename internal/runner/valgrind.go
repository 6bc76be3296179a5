package runner

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A Callgrind says how a server's instructions per query are counted:
// mariadbd runs under valgrind's callgrind tool, a fixed seeded sequence
// of point selects runs on one connection, and the instructions of the
// measured queries are read from a callgrind dump. Zero fields take the
// documented defaults.
type Callgrind struct {
	// Valgrind is the valgrind binary. Default: valgrind on PATH.
	Valgrind string
	// Control is callgrind_control. Default: next to Valgrind, else on PATH.
	Control string
	// Toggle counts only inside this function and what it calls
	// (--collect-atstart=no --toggle-collect=Toggle). Default
	// "dispatch_command*": the server's work on each client command,
	// nothing of its background threads (measured: 0.03 % spread, against
	// 0.1-0.3 % for the whole server; /work/notes/callgrind.md).
	Toggle string
	// WholeServer counts everything the server executes between zeroing
	// and dumping the counters instead (Toggle is ignored): the network
	// read before each command and the background threads too.
	WholeServer bool
	// Warmup is the number of unmeasured queries before each sample.
	// Default: Queries (every row the measured queries read is warm).
	Warmup int
	// Queries is the number of measured queries of a sample. Default 1000.
	Queries int
	// Seed seeds the query sequence. Default 1.
	Seed uint64
	// SamplesPerStart is how many samples one server start serves before
	// it is restarted. Default 3.
	SamplesPerStart int
	// StartTimeout bounds a start under valgrind. Default 10 minutes.
	StartTimeout time.Duration
	// SampleTimeout bounds one sample (warm-up, queries, dump): a server
	// that takes longer hangs. Default 5 minutes.
	SampleTimeout time.Duration
	// DumpDir keeps the dumps (required).
	DumpDir string
}

// DefaultCallgrind holds the defaults of Callgrind's zero fields.
var DefaultCallgrind = Callgrind{Toggle: "dispatch_command*", Queries: 1000, Seed: 1, SamplesPerStart: 3,
	StartTimeout: 10 * time.Minute, SampleTimeout: 5 * time.Minute}

// WithDefaults returns c with zero fields set to DefaultCallgrind's.
func (c Callgrind) WithDefaults() Callgrind {
	d := DefaultCallgrind
	c.Toggle = cmp.Or(c.Toggle, d.Toggle)
	c.Queries = cmp.Or(c.Queries, d.Queries)
	c.Warmup = cmp.Or(c.Warmup, c.Queries)
	c.Seed = cmp.Or(c.Seed, d.Seed)
	c.SamplesPerStart = cmp.Or(c.SamplesPerStart, d.SamplesPerStart)
	c.StartTimeout = cmp.Or(c.StartTimeout, d.StartTimeout)
	c.SampleTimeout = cmp.Or(c.SampleTimeout, d.SampleTimeout)
	return c
}

// Validate rejects nonsense.
func (c Callgrind) Validate() error {
	c = c.WithDefaults()
	switch {
	case c.DumpDir == "":
		return errors.New("callgrind: a dump directory is required")
	case c.Queries < 1 || c.Warmup < 0 || c.SamplesPerStart < 1:
		return fmt.Errorf("callgrind: queries %d, warm-up %d, samples per start %d: must be positive",
			c.Queries, c.Warmup, c.SamplesPerStart)
	case strings.ContainsAny(c.Toggle, " \n"):
		return fmt.Errorf("callgrind: toggle function %q: one function name pattern, no spaces", c.Toggle)
	}
	return nil
}

// ErrNoValgrind is returned when valgrind or callgrind_control is missing.
var ErrNoValgrind = errors.New("valgrind not found: install it with apt-get install valgrind")

// tools returns the valgrind and callgrind_control binaries.
func (c Callgrind) tools() (valgrind, control string, err error) {
	valgrind, control = c.Valgrind, c.Control
	if valgrind == "" {
		if valgrind, err = exec.LookPath("valgrind"); err != nil {
			return "", "", ErrNoValgrind
		}
	} else if !fileExists(valgrind) {
		return "", "", fmt.Errorf("%s: %w", valgrind, ErrNoValgrind)
	}
	if control == "" {
		control = filepath.Join(filepath.Dir(valgrind), "callgrind_control")
		if !fileExists(control) {
			if control, err = exec.LookPath("callgrind_control"); err != nil {
				return "", "", fmt.Errorf("no callgrind_control: %w", ErrNoValgrind)
			}
		}
	}
	return valgrind, control, nil
}

// Version returns valgrind's version ("valgrind-3.19.0"): instruction
// counts are comparable only under the same valgrind (it decides the CPU
// features the server, and so glibc, sees). It is ErrNoValgrind without one.
func (c Callgrind) Version(ctx context.Context) (string, error) {
	valgrind, _, err := c.tools()
	if err != nil {
		return "", err
	}
	out, err := exec.CommandContext(ctx, valgrind, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", valgrind, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// serverOptions returns the server options that valgrind needs, after the
// caller's: asynchronous I/O through threads (native AIO hangs under
// valgrind), no buffer pool load in the background, and the buffer pool's address space reservation limited to
// the pool itself where the server has innodb_buffer_pool_size_max (its
// 8 TiB default cannot be mapped under valgrind).
func serverOptions(ctx context.Context, cfg ServerConfig) []string {
	opts := append([]string(nil), cfg.Options...)
	// No buffer pool load at start (nor dump at stop): a load would run
	// in the background while the counted queries run.
	opts = append(opts, "innodb_use_native_aio=0", "innodb_buffer_pool_load_at_startup=0",
		"innodb_buffer_pool_dump_at_shutdown=0")
	// A server that cannot print its options is left to fail at start,
	// where its crash carries the error log.
	if known, _ := knowsOption(ctx, cfg.Mariadbd, "innodb-buffer-pool-size-max"); known {
		opts = append(opts, "innodb_buffer_pool_size_max="+strconv.FormatInt(cfg.BufferPool, 10))
	}
	return opts
}

var optionCache = struct {
	sync.Mutex
	m map[string]string // mariadbd path and mtime -> its --help --verbose
}{m: map[string]string{}}

// knowsOption reports whether mariadbd lists option (dashed form) in
// --help --verbose.
func knowsOption(ctx context.Context, mariadbd, option string) (bool, error) {
	st, err := os.Stat(mariadbd)
	if err != nil {
		return false, fmt.Errorf("no server binary at %s", mariadbd)
	}
	key := mariadbd + "@" + st.ModTime().String()
	optionCache.Lock()
	help, ok := optionCache.m[key]
	optionCache.Unlock()
	if !ok {
		cmd := exec.CommandContext(ctx, mariadbd, "--no-defaults", "--help", "--verbose")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			return false, fmt.Errorf("%s --help --verbose: %w\n%s", mariadbd, err, lastLines(out.String(), 10))
		}
		help = out.String()
		optionCache.Lock()
		optionCache.m[key] = help
		optionCache.Unlock()
	}
	return strings.Contains(help, "--"+option+"="), nil
}

// StartCallgrind starts the server of cfg under valgrind's callgrind on an
// existing datadir (prepare it on a plain server first: loading data
// under valgrind is far too slow). Its dumps go to dumpPrefix.<pid>.<n>.
func StartCallgrind(ctx context.Context, cfg ServerConfig, cg Callgrind, dumpPrefix string) (*Server, error) {
	cg = cg.WithDefaults()
	if err := cg.Validate(); err != nil {
		return nil, err
	}
	valgrind, _, err := cg.tools()
	if err != nil {
		return nil, err
	}
	cfg.setDefaults()
	cfg.Options = serverOptions(ctx, cfg)
	if err := os.MkdirAll(filepath.Dir(dumpPrefix), 0o755); err != nil {
		return nil, err
	}
	// --trace-children: a server binary may be a script that execs the
	// real one (the test repository's is); valgrind follows the exec.
	// --dump-line=no: costs per function, not per source line; the dumps
	// of a build with debug information stay small.
	cfg.Wrapper = []string{valgrind, "--tool=callgrind", "--trace-children=yes", "--dump-line=no",
		"--callgrind-out-file=" + dumpPrefix + ".%p"}
	if !cg.WholeServer {
		cfg.Wrapper = append(cfg.Wrapper, "--collect-atstart=no", "--toggle-collect="+cg.Toggle)
	}
	cfg.StartTimeout = cg.StartTimeout
	return Start(ctx, cfg)
}

// control runs callgrind_control with one command (-z zero, -d dump) on
// the server's process.
func (c Callgrind) control(ctx context.Context, s *Server, flag string) error {
	_, control, err := c.tools()
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, control, flag, strconv.Itoa(s.Pid()))
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if err == nil && !strings.Contains(string(out), "OK") {
		err = errors.New("no OK")
	}
	if err != nil {
		return fmt.Errorf("callgrind_control %s %d: %w: %s", flag, s.Pid(), err, strings.TrimSpace(string(out)))
	}
	return nil
}
