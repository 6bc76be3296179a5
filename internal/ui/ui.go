// Package ui is perfbisect's one way to talk to the user: results go to
// Out (stdout), everything meant for people (progress, notices, warnings,
// logs) goes to Err (stderr), and one slog.Logger carries the details
// that --verbose shows. Commands and pipelines take an *IO and nothing
// else for output.
package ui

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"

	"github.com/mattn/go-isatty"
)

// An IO holds the output streams of one command.
type IO struct {
	// Out receives results: tables, reports, --json documents.
	Out io.Writer
	// Err receives what people read while a command runs.
	Err io.Writer
	// Quiet drops progress and notices (warnings and errors still show).
	Quiet bool
	// Log is the details logger (on Err; debug level with --verbose).
	Log *slog.Logger

	mu       sync.Mutex
	terminal *bool
}

// New returns an IO on out and err with a warn-level text logger on err,
// or a debug-level one when verbose.
func New(out, err io.Writer, verbose bool) *IO {
	return &IO{Out: out, Err: err, Log: Logger(err, verbose)}
}

// Logger returns perfbisect's details logger on w: text, warn level, or
// debug level when verbose.
func Logger(w io.Writer, verbose bool) *slog.Logger {
	level := slog.LevelWarn
	if verbose {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}

// Discard returns an IO that writes nothing (tests, library use).
func Discard() *IO { return New(io.Discard, io.Discard, false) }

// Progress returns the writer for progress lines: Err, or io.Discard when
// quiet. Builders and runners write to it.
func (o *IO) Progress() io.Writer {
	if o == nil || o.Quiet || o.Err == nil {
		return io.Discard
	}
	return o.Err
}

// Printf writes one progress or notice line to Err unless quiet.
func (o *IO) Printf(format string, args ...any) {
	if o == nil || o.Quiet || o.Err == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	fmt.Fprintf(o.Err, format+"\n", args...)
}

// Warnf writes "perfbisect: warning: ..." to Err, also when quiet.
func (o *IO) Warnf(format string, args ...any) {
	if o == nil || o.Err == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	fmt.Fprintf(o.Err, "perfbisect: warning: "+format+"\n", args...)
}

// IsTerminal reports whether Err is a terminal (progress may then redraw
// one line instead of printing many).
func (o *IO) IsTerminal() bool {
	if o == nil {
		return false
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.terminal == nil {
		t := false
		if f, ok := o.Err.(*os.File); ok {
			t = isatty.IsTerminal(f.Fd()) // not /dev/null, which is a character device too
		}
		o.terminal = &t
	}
	return *o.terminal
}
