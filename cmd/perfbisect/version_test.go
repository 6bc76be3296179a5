package main

import (
	"runtime/debug"
	"testing"
)

func TestDescribeVersion(t *testing.T) {
	vcs := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	const rev = "83a48d2bc84e0123456789abcdef0123456789ab"
	tests := []struct {
		name, ldflags string
		bi            *debug.BuildInfo
		want          string
	}{
		{"no build info", "dev", nil, "dev"},
		{"ldflags win", "v1.2.3", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-x"}}, "v1.2.3"},
		{"module version", "dev", &debug.BuildInfo{Main: debug.Module{Version: "v0.4.0"}}, "v0.4.0"},
		{"devel", "dev", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "dev"},
		{"vcs", "dev", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
			Settings: vcs("vcs.revision", rev, "vcs.time", "2026-11-30T18:52:00Z", "vcs.modified", "false")},
			"dev (commit 83a48d2bc84e, 2026-11-30T18:52:00Z)"},
		{"modified", "v1.0.0", &debug.BuildInfo{
			Settings: vcs("vcs.revision", rev, "vcs.time", "2026-11-30T18:52:00Z", "vcs.modified", "true")},
			"v1.0.0 (commit 83a48d2bc84e, modified, 2026-11-30T18:52:00Z)"},
		{"short revision", "dev", &debug.BuildInfo{Settings: vcs("vcs.revision", "abc")}, "dev (commit abc)"},
	}
	for _, tt := range tests {
		if got := describeVersion(tt.ldflags, tt.bi); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestVersionFlag: --version prints the build's description.
func TestVersionFlag(t *testing.T) {
	isolate(t)
	out, _, err := execute(t, "--version")
	if err != nil {
		t.Fatal(err)
	}
	if want := "perfbisect " + versionString() + "\n"; out != want {
		t.Errorf("--version: %q, want %q", out, want)
	}
}
