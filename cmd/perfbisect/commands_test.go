package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestUnknownCommandSuggests: a typo in a command, on the root or in a
// group, is a usage error (exit 2) that says what was meant.
func TestUnknownCommandSuggests(t *testing.T) {
	tests := []struct {
		args []string
		want string // the suggestion; "" for none
	}{
		{[]string{"bisekt"}, "did you mean bisect?"},
		{[]string{"bisekt", "--good", "a", "--bad", "b"}, "did you mean bisect?"},
		{[]string{"db", "bisect"}, "did you mean bisects?"},
		{[]string{"model", "rn"}, "did you mean run?"},
		{[]string{"scenario", "lst"}, "did you mean list?"},
		{[]string{"pointselect", "prepar"}, "did you mean prepare?"},
		{[]string{"xyzzy"}, ""},
		{[]string{"db", "xyzzy"}, ""},
	}
	for _, tt := range tests {
		isolate(t)
		_, _, err := execute(t, tt.args...)
		var ue *usageError
		if !errors.As(err, &ue) {
			t.Errorf("%v: err = %v, want a usage error", tt.args, err)
			continue
		}
		if !strings.Contains(err.Error(), "unknown command") || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: %q, want unknown command and %q", tt.args, err, tt.want)
		}
	}
	// A group alone still prints its help.
	for _, g := range []string{"db", "model", "scenario", "pointselect"} {
		isolate(t)
		out, _, err := execute(t, g)
		if err != nil || !strings.Contains(out, "Available Commands") {
			t.Errorf("%s: err = %v, help:\n%s", g, err, out)
		}
	}
}

// TestHelpCitesDocsThatExist: every repository path a help text cites
// (docs/x.md, internal/y/Z.md) is in the repository.
func TestHelpCitesDocsThatExist(t *testing.T) {
	cited := regexp.MustCompile(`\b(?:docs|internal)/[\w./-]*\w\.md\b`)
	found := 0
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		texts := []string{c.Short, c.Long, c.Example}
		c.Flags().VisitAll(func(f *pflag.Flag) { texts = append(texts, f.Usage) })
		for _, m := range cited.FindAllString(strings.Join(texts, "\n"), -1) {
			found++
			if _, err := os.Stat(filepath.Join("..", "..", m)); err != nil {
				t.Errorf("%s cites %s: %v", c.CommandPath(), m, err)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd(io.Discard, io.Discard))
	if found < 2 {
		t.Errorf("found %d cited docs, want at least the AHI and point-select specs", found)
	}
}
