package report

import (
	"bytes"
	"strings"
	"testing"
)

// An instructions bisect speaks of instructions per query everywhere:
// no "TPS", no "faster" or "slower", and more instructions is the
// regression. (The throughput check, which is about TPS, is left out
// here; TestInstructionsProfileAndConfirmation looks at it.)
func TestInstructionsReportHasNoThroughputWords(t *testing.T) {
	in := loadCase(t, "instructions")
	in.Confirmations = nil
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

// The culprit of an instructions bisect carries where its instructions
// went and its throughput check, in Markdown and in JSON.
func TestInstructionsProfileAndConfirmation(t *testing.T) {
	in := loadCase(t, "instructions")
	rep, err := Build(in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := rep.Culprits[0]
	if c.Profile == nil || len(c.Profile.Self) != 3 || c.Profile.Self[0].Delta != "+322" {
		t.Fatalf("profile of the culprit: %+v", c.Profile)
	}
	if c.Confirmation == nil || c.Confirmation.Verdict != "worse" {
		t.Fatalf("throughput check of the culprit: %+v", c.Confirmation)
	}
	var js bytes.Buffer
	if err := JSON(&js, in, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"profile": {`, `"tps_confirmation": {`, `"name": "srw_lock_impl<false>::rd_lock()"`} {
		if !strings.Contains(js.String(), want) {
			t.Errorf("JSON lacks %s", want)
		}
	}
	// Without profiles or checks (a TPS bisect), neither section appears.
	in.Profiles, in.Confirmations = nil, nil
	var md bytes.Buffer
	if err := Markdown(&md, in, Options{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(md.String(), "Where the instructions went") || strings.Contains(md.String(), "Throughput check") {
		t.Error("sections rendered without their data")
	}
}

// Every golden case's title stays under titleMax characters.
func TestTitlesAreShort(t *testing.T) {
	for _, name := range goldenCases {
		rep, err := Build(loadCase(t, name), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if n := len([]rune(rep.Title)); n > titleMax {
			t.Errorf("%s: title of %d characters: %s", name, n, rep.Title)
		}
	}
}
