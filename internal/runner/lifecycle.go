package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

func listenLocal() (net.Listener, error) { return net.Listen("tcp", "127.0.0.1:0") }

// installDBScript finds mariadb-install-db under basedir: a source install
// keeps it in scripts/, Debian's package in bin/.
func installDBScript(basedir string) (string, error) {
	for _, rel := range []string{"scripts/mariadb-install-db", "bin/mariadb-install-db", "scripts/mysql_install_db", "bin/mysql_install_db"} {
		if p := filepath.Join(basedir, rel); fileExists(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("no mariadb-install-db under %s (looked in scripts/ and bin/)", basedir)
}

// InstallDB creates an empty datadir with mariadb-install-db: root may log
// in over the socket without a password, and there is no test database.
func InstallDB(ctx context.Context, cfg ServerConfig) error {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return err
	}
	script, err := installDBScript(cfg.Basedir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(cfg.Datadir, 0o755); err != nil {
		return err
	}
	// A tmpdir of its own: a mariadbd starting elsewhere deletes every
	// #sql* file in its tmpdir, the bootstrap's temporary tables too
	// ("Unknown table 'mysql.tmp_proxies_priv'" when they share /tmp).
	tmp, err := os.MkdirTemp("", "perfbisect-install-db-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	args := []string{"--no-defaults", "--basedir=" + cfg.Basedir, "--datadir=" + cfg.Datadir,
		"--auth-root-authentication-method=normal", "--skip-test-db", "--tmpdir=" + tmp}
	if os.Geteuid() == 0 {
		args = append(args, "--user=root")
	}
	cmd := exec.CommandContext(ctx, script, args...)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("mariadb-install-db into %s: %w\n%s", cfg.Datadir, err, installDBCause(out.String()))
	}
	return nil
}

// live is every server this process started and has not yet seen exit:
// StopAll stops them on the way out.
var live = struct {
	sync.Mutex
	m map[*Server]struct{}
}{m: map[*Server]struct{}{}}

// StopAll stops every server this process still runs. Commands defer it so
// that no error path leaves a mariadbd behind.
func StopAll() {
	live.Lock()
	servers := make([]*Server, 0, len(live.m))
	for s := range live.m {
		servers = append(servers, s)
	}
	live.Unlock()
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Add(1)
		go func() { defer wg.Done(); s.Stop(context.Background()) }()
	}
	wg.Wait()
}

// Start writes the option file, starts mariadbd and waits until it answers
// a query. A server that exits first is a *CrashError carrying its error
// log's tail. The server is stopped when ctx is cancelled; callers Stop it
// when done.
func Start(ctx context.Context, cfg ServerConfig) (*Server, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if !fileExists(cfg.Mariadbd) {
		return nil, fmt.Errorf("no server binary at %s", cfg.Mariadbd)
	}
	if err := os.MkdirAll(cfg.RunDir, 0o755); err != nil {
		return nil, err
	}
	if cfg.Port == 0 {
		p, err := freePort()
		if err != nil {
			return nil, fmt.Errorf("choosing a port: %w", err)
		}
		cfg.Port = p
	}
	os.Remove(cfg.Socket())
	os.Remove(cfg.ErrorLog()) // the tail must be this start's
	if err := os.MkdirAll(cfg.TmpDir(), 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(cfg.OptionFile(), []byte(cfg.optionFile()), 0o644); err != nil {
		return nil, err
	}
	argv := append(append([]string(nil), cfg.Wrapper...), cfg.Mariadbd, "--defaults-file="+cfg.OptionFile())
	if cfg.CPUs != "" {
		argv = append([]string{"taskset", "-c", cfg.CPUs}, argv...)
	}
	out, err := os.OpenFile(filepath.Join(cfg.RunDir, "stdout.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer out.Close()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = out, out
	// Its own process group, so a terminal's Ctrl-C reaches perfbisect
	// only, which then shuts the server down cleanly; Pdeathsig kills it
	// if perfbisect itself is killed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", cfg.Mariadbd, err)
	}
	s := &Server{cfg: cfg, cmd: cmd, done: make(chan struct{}), stopping: make(chan struct{})}
	live.Lock()
	live.m[s] = struct{}{}
	live.Unlock()
	go func() {
		s.err = cmd.Wait()
		live.Lock()
		delete(live.m, s)
		live.Unlock()
		close(s.done)
	}()
	context.AfterFunc(ctx, func() { s.Stop(context.Background()) })
	if err := s.waitReady(ctx); err != nil {
		s.Stop(context.Background())
		return nil, err
	}
	return s, nil
}

// waitReady polls the server until it answers, exits, or time runs out.
func (s *Server) waitReady(ctx context.Context) error {
	deadline := time.Now().Add(s.cfg.StartTimeout)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		if fileExists(s.cfg.Socket()) {
			pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			err := ping(pctx, s.DSN(""))
			cancel()
			if err == nil {
				return nil
			}
		}
		select {
		case <-s.done:
			return s.crash("at start")
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("mariadbd %s did not answer within %s; error log tail:\n%s",
				s.cfg.Mariadbd, s.cfg.StartTimeout, s.LogTail(15))
		}
	}
}

// crash describes an exit that nobody asked for.
func (s *Server) crash(state string) *CrashError {
	exit := "unknown"
	if s.err != nil {
		exit = s.err.Error()
	} else {
		exit = "exit status 0"
	}
	return &CrashError{Mariadbd: s.cfg.Mariadbd, State: state, Exit: exit, LogTail: s.LogTail(15)}
}

// Crashed returns a *CrashError if the server has exited without Stop,
// and nil while it runs or after a requested stop.
func (s *Server) Crashed() error {
	select {
	case <-s.done:
	default:
		return nil
	}
	select {
	case <-s.stopping:
		return nil
	default:
		return s.crash("during the run")
	}
}

// LogTail returns the last n lines of the server's error log.
func (s *Server) LogTail(n int) string {
	b, err := os.ReadFile(s.cfg.ErrorLog())
	if err != nil {
		b, _ = os.ReadFile(filepath.Join(s.cfg.RunDir, "stdout.log"))
	}
	return lastLines(string(b), n)
}

// Stop shuts the server down cleanly (SIGTERM, as mysqladmin shutdown
// does), and kills it with SIGKILL if it has not exited after StopGrace or
// when ctx ends. It returns once the process is gone; calling it again is
// harmless.
func (s *Server) Stop(ctx context.Context) error {
	s.stopOnce.Do(func() {
		close(s.stopping)
		s.signal(syscall.SIGTERM)
		grace := time.NewTimer(s.cfg.StopGrace)
		defer grace.Stop()
		select {
		case <-s.done:
			return
		case <-grace.C:
			s.stopErr = fmt.Errorf("mariadbd did not shut down within %s: killed", s.cfg.StopGrace)
		case <-ctx.Done():
			s.stopErr = fmt.Errorf("mariadbd shutdown interrupted: killed")
		}
		s.signal(syscall.SIGKILL)
		<-s.done
	})
	return s.stopErr
}

// Pid is the server's process id.
func (s *Server) Pid() int { return s.cmd.Process.Pid }

// installDBCause returns the part of mariadb-install-db's output that
// says why it failed: the server's last lines before the script's
// boilerplate advice ("Installation of system tables failed! ...").
func installDBCause(out string) string {
	if i := strings.Index(out, "Installation of system tables failed"); i >= 0 {
		out = out[:i]
	}
	return lastLines(out, 15)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// IsCrash reports whether err is (or wraps) a server crash.
func IsCrash(err error) bool {
	var c *CrashError
	return errors.As(err, &c)
}
