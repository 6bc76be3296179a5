package report

import (
	"bytes"
	"strings"
	"testing"
)

// An instructions bisect speaks of instructions per query everywhere:
// no "TPS", no "faster" or "slower", and more instructions is the
// regression.
func TestInstructionsReportHasNoThroughputWords(t *testing.T) {
	in := loadCase(t, "instructions")
	var md, svg bytes.Buffer
	if err := Markdown(&md, in, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := SVG(&svg, in, Options{}); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"markdown": md.String(), "svg": svg.String()} {
		for _, bad := range []string{"TPS", "faster", "slower", "throughput", "speed-up", "slowdown"} {
			if strings.Contains(text, bad) {
				t.Errorf("%s of an instructions bisect says %q", name, bad)
			}
		}
	}
	rep, err := Build(in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Regression || !strings.Contains(rep.Title, "more instructions per query") {
		t.Errorf("title %q: want more instructions per query, a regression", rep.Title)
	}
	if rep.Culprits[0].Kind != "regression" {
		t.Errorf("culprit kind %q, want regression", rep.Culprits[0].Kind)
	}
}
