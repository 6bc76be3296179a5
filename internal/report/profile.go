package report

import (
	"fmt"
	"math"
	"strconv"

	"github.com/perfbisect/perfbisect/internal/bisect"
	"github.com/perfbisect/perfbisect/internal/callgrind"
)

// A Profile says where a culprit's instructions per query went: the
// callgrind diff of its runs against its parent's (instructions bisects;
// the pipeline's Outcome.Profiles).
type Profile struct {
	Commit bisect.Commit  `json:"commit"`
	Parent bisect.Commit  `json:"parent"`
	Diff   callgrind.Diff `json:"diff"`
}

// A Confirmation holds an instructions verdict up against throughput: the
// same two builds measured with interleaved TPS runs (the pipeline's
// Outcome.Confirmations).
type Confirmation struct {
	Old bisect.Commit `json:"old"`
	New bisect.Commit `json:"new"`
	// Instructions is the relative change in instructions per query the
	// bisect measured (positive: more work per query).
	Instructions float64 `json:"instructions_change"`
	// TPS is the throughput comparison of New against Old.
	TPS TPSCheck `json:"tps"`
	// Note says what the two figures mean together, in one sentence.
	Note string `json:"note"`
}

// A TPSCheck is a throughput comparison of two builds.
type TPSCheck struct {
	OldMedian float64 `json:"old_median"`
	NewMedian float64 `json:"new_median"`
	OldRuns   int     `json:"old_runs"`
	NewRuns   int     `json:"new_runs"`
	// Delta is NewMedian/OldMedian - 1, CILow..CIHigh its 95 % bootstrap
	// interval, P the Mann-Whitney p-value.
	Delta  float64 `json:"delta"`
	CILow  float64 `json:"ci_low"`
	CIHigh float64 `json:"ci_high"`
	P      float64 `json:"p"`
	// Verdict is "worse", "better" or "same" for New against Old.
	Verdict string `json:"verdict"`
}

// A ProfileView is a culprit's profile as the report shows it.
type ProfileView struct {
	Event     string    `json:"event"` // "Ir": instructions
	Before    string    `json:"before"`
	After     string    `json:"after"`
	Delta     string    `json:"delta"`
	Self      []FuncRow `json:"self,omitempty"`
	Inclusive []FuncRow `json:"inclusive,omitempty"`
}

// A FuncRow is one function of a profile diff, formatted.
type FuncRow struct {
	Name   string `json:"name"`
	File   string `json:"file"`
	Before string `json:"before"`
	After  string `json:"after"`
	Delta  string `json:"delta"`
	Share  string `json:"share"` // of the total change per query
}

// A ConfirmationView is a throughput check as the report shows it.
type ConfirmationView struct {
	Old     string `json:"old"`
	New     string `json:"new"`
	Line    string `json:"line"` // the comparison's figures
	Note    string `json:"note"`
	Verdict string `json:"verdict"`
}

// profileView formats a culprit's profile, nil when it has none.
func (t *texts) profileView(c bisect.Culprit) *ProfileView {
	for _, p := range t.in.Profiles {
		if p.Commit.Hash != c.Commit.Hash {
			continue
		}
		d := p.Diff
		v := &ProfileView{Event: d.Event, Before: perQuery(d.Before), After: perQuery(d.After), Delta: signedPerQuery(d.Delta)}
		v.Self, v.Inclusive = funcRows(d.Self), funcRows(d.Inclusive)
		return v
	}
	return nil
}

func funcRows(fs []callgrind.FuncDelta) []FuncRow {
	out := make([]FuncRow, len(fs))
	for i, f := range fs {
		out[i] = FuncRow{Name: f.Name, File: f.File, Before: perQuery(f.Before), After: perQuery(f.After),
			Delta: signedPerQuery(f.Delta), Share: strconv.FormatFloat(100*f.Share, 'f', 0, 64) + " %"}
	}
	return out
}

// perQuery formats a cost per query: one decimal below 100, none above.
func perQuery(v float64) string {
	if math.Abs(v) < 100 {
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return tpsInt(v)
}

func signedPerQuery(v float64) string {
	if v >= 0 {
		return "+" + perQuery(v)
	}
	return perQuery(v)
}

// confirmationView formats the throughput check of old against new,
// nil when there is none.
func (t *texts) confirmationView(old, new string) *ConfirmationView {
	for _, c := range t.in.Confirmations {
		if c.Old.Hash == old && c.New.Hash == new {
			v := confirmationOf(c)
			return &v
		}
	}
	return nil
}

func confirmationOf(c Confirmation) ConfirmationView {
	x := c.TPS
	return ConfirmationView{Old: shortOf(c.Old), New: shortOf(c.New), Note: c.Note, Verdict: x.Verdict,
		Line: fmt.Sprintf("median %s to %s TPS (%s; 95 %% CI %s to %s), Mann-Whitney p = %s, %d + %d interleaved runs; instructions per query %s",
			tps(x.OldMedian), tps(x.NewMedian), pct(x.Delta), pct(x.CILow), pct(x.CIHigh), pValue(x.P), x.OldRuns, x.NewRuns, pct(c.Instructions))}
}

// otherConfirmations are the throughput checks not of a culprit (good
// against bad when the instruction counts did not differ).
func (t *texts) otherConfirmations() []ConfirmationView {
	var out []ConfirmationView
	for _, c := range t.in.Confirmations {
		if t.isCulpritPair(c.Old.Hash, c.New.Hash) {
			continue
		}
		out = append(out, confirmationOf(c))
	}
	return out
}

func (t *texts) isCulpritPair(old, new string) bool {
	for _, c := range t.r.Culprits {
		if c.Parent.Hash == old && c.Commit.Hash == new {
			return true
		}
	}
	return false
}
