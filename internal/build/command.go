package build

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// A lineWriter copies a child's output to the log and hands each complete
// line to onLine. exec calls Write from one goroutine at a time when
// Stdout and Stderr are the same *lineWriter.
type lineWriter struct {
	log    io.Writer
	onLine func(string)
	buf    []byte
}

func (w *lineWriter) Write(p []byte) (int, error) {
	if _, err := w.log.Write(p); err != nil {
		return 0, err
	}
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		line := strings.TrimRight(string(w.buf[:i]), "\r")
		w.buf = w.buf[i+1:]
		if w.onLine != nil {
			w.onLine(line)
		}
	}
	return len(p), nil
}

// flush hands a last unterminated line to onLine.
func (w *lineWriter) flush() {
	if len(w.buf) > 0 && w.onLine != nil {
		w.onLine(string(w.buf))
	}
	w.buf = nil
}

// runCmd runs name with args in dir, in its own process group, with env
// added to the environment, its output going to log and onLine. When ctx
// is cancelled the group gets SIGTERM (ninja forwards it to its
// compilers, which it starts in groups of their own), then after
// waitDelay the process is killed. Once it is gone, every process still
// carrying this run's token in its environment gets SIGKILL (see sweep),
// so a cancelled build leaves nothing running.
func runCmd(ctx context.Context, log io.Writer, onLine func(string), waitDelay time.Duration, dir string, env []string, name string, args ...string) error {
	fmt.Fprintf(log, "$ %s %s\n", name, strings.Join(args, " "))
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	token := newToken()
	cmd.Env = append(append(os.Environ(), env...), token)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		err := syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		if errors.Is(err, syscall.ESRCH) {
			return os.ErrProcessDone
		}
		return err
	}
	cmd.WaitDelay = waitDelay
	w := &lineWriter{log: log, onLine: onLine}
	cmd.Stdout, cmd.Stderr = w, w
	err := cmd.Run()
	w.flush()
	if cmd.Process != nil && ctx.Err() != nil {
		// The leader is gone; whatever it started goes too.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		sweep(token, waitDelay)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		fmt.Fprintf(log, "# %s: %v\n", name, err)
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}
