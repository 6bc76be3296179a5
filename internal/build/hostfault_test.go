package build

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A compile that fails because the machine's disk is full is the
// machine's fault: a *HostError, not ErrUnbuildable, and nothing about
// the tree is remembered; once the machine is mended the same tree
// builds.
func TestFullDiskIsNotAnUnbuildableCommit(t *testing.T) {
	requireTools(t)
	ctx := context.Background()
	dir := t.TempDir()
	full := filepath.Join(dir, "disk-full")
	launcher := filepath.Join(dir, "launcher")
	script := "#!/bin/sh\nif [ -e " + full + " ]; then\n" +
		"  echo \"cc1: fatal error: error writing to /tmp/ccX.s: No space left on device\" >&2\n  exit 1\nfi\nexec \"$@\"\n"
	if err := os.WriteFile(launcher, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r := toyRecipe()
	r.CMakeFlags = append(r.CMakeFlags, "-DCMAKE_C_COMPILER_LAUNCHER="+launcher)
	b := newToyBuilder(t, r)
	src := newToyRepo(t).source(ctx, "HEAD")

	_, err := b.Build(ctx, src, nil)
	var he *HostError
	if !errors.As(err, &he) || errors.Is(err, ErrUnbuildable) {
		t.Fatalf("build on a full disk: %v; want a *HostError that is not ErrUnbuildable", err)
	}
	if he.Step != "compile" || !strings.Contains(he.Reason, "No space left on device") || !strings.Contains(err.Error(), "not the commit") {
		t.Errorf("HostError %+v (%q): want the compile step and the log line", he, err)
	}
	if err := os.Remove(full); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Build(ctx, src, nil); err != nil {
		t.Errorf("the same tree once the disk has room: %v", err)
	}
}

// A compile error in the source stays the commit's fault.
func TestHostFaultIgnoresCompileErrors(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "build.log")
	os.WriteFile(log, []byte("[1/5] Building C object c.c.o\nc.c:2:14: error: expected expression before ';' token\nninja: build stopped: subcommand failed.\n"), 0o644)
	if r := hostFault(nil, tailFile(log, hostFaultLines)); r != "" {
		t.Errorf("a syntax error blamed on the machine: %q", r)
	}
	os.WriteFile(log, []byte("[3/900] Building CXX object sql/item.cc.o\nc++: fatal error: Killed signal terminated program cc1plus\ncompilation terminated.\n"), 0o644)
	if r := hostFault(nil, tailFile(log, hostFaultLines)); !strings.Contains(r, "Killed signal") {
		t.Errorf("the OOM killer's victim: %q, want it blamed on the machine", r)
	}
}
