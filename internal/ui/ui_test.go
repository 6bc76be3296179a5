package ui

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

func TestQuietKeepsWarnings(t *testing.T) {
	var out, err bytes.Buffer
	io := New(&out, &err, false)
	io.Printf("progress %d", 1)
	io.Quiet = true
	io.Printf("progress %d", 2)
	io.Warnf("careful")
	if got := err.String(); got != "progress 1\nperfbisect: warning: careful\n" {
		t.Errorf("stderr %q", got)
	}
	if out.Len() != 0 {
		t.Errorf("stdout got %q: results only", out.String())
	}
	if io.Progress() == &err {
		t.Error("a quiet IO hands out stderr for progress")
	}
}

// /dev/null is a character device but not a terminal: progress must not
// redraw lines into it.
func TestDevNullIsNoTerminal(t *testing.T) {
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if New(f, f, false).IsTerminal() {
		t.Error("/dev/null taken for a terminal")
	}
	if New(&bytes.Buffer{}, &bytes.Buffer{}, false).IsTerminal() {
		t.Error("a buffer taken for a terminal")
	}
}

func TestVerboseLogsDebug(t *testing.T) {
	var err bytes.Buffer
	New(&bytes.Buffer{}, &err, true).Log.Debug("detail", "k", 1)
	New(&bytes.Buffer{}, &err, false).Log.Debug("hidden")
	if !strings.Contains(err.String(), "detail") || strings.Contains(err.String(), "hidden") {
		t.Errorf("log %q", err.String())
	}
}
