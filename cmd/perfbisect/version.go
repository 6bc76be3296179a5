package main

import (
	"runtime/debug"
	"strings"
)

// version is set at link time: -ldflags "-X main.version=v1.2.3". Left at
// "dev", --version reads the build information Go stamps into the binary.
var version = "dev"

// versionString is what --version prints after "perfbisect ".
func versionString() string {
	bi, _ := debug.ReadBuildInfo()
	return describeVersion(version, bi)
}

// describeVersion names a build: the -ldflags version when set, else the
// main module's version, then the VCS revision (12 digits), whether the
// tree was modified, and the commit time, as far as bi knows them:
// "v0.3.1 (commit 83a48d2bc84e, modified, 2026-11-30T18:52:00Z)". bi may
// be nil (a binary built without module support).
func describeVersion(ldflags string, bi *debug.BuildInfo) string {
	v := ldflags
	if bi != nil && (v == "" || v == "dev") && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v = bi.Main.Version
	}
	if v == "" {
		v = "dev"
	}
	if bi == nil {
		return v
	}
	var rev, when string
	modified := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	var parts []string
	if rev != "" {
		parts = append(parts, "commit "+rev[:min(12, len(rev))])
	}
	if modified {
		parts = append(parts, "modified")
	}
	if when != "" {
		parts = append(parts, when)
	}
	if len(parts) == 0 {
		return v
	}
	return v + " (" + strings.Join(parts, ", ") + ")"
}
