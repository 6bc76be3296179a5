package report

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/perfbisect/perfbisect/internal/bisect"
)

// texts writes the report's sentences from an Input.
type texts struct {
	in      Input
	r       bisect.Result
	base    string // repository web URL, "" if unknown
	details map[string]CommitDetails
	means   map[string]bisect.Measured
	mt      metricText
}

func newTexts(in Input, base string) *texts {
	t := &texts{in: in, r: in.Result, base: base,
		details: map[string]CommitDetails{}, means: map[string]bisect.Measured{}, mt: metricOf(in.Result.Config)}
	for _, d := range in.Details {
		t.details[d.Hash] = d
	}
	for _, m := range in.Result.Commits {
		t.means[m.Commit.Hash] = m
	}
	return t
}

func (t *texts) workload() string {
	if t.in.Benchmark.Workload == "" {
		return upperFirst(t.mt.noun())
	}
	return t.in.Benchmark.Workload
}

func (t *texts) good() string { return orDefault(t.in.Request.Good, shortOf(t.r.Good)) }
func (t *texts) bad() string  { return orDefault(t.in.Request.Bad, shortOf(t.r.Bad)) }

// baseName names the merge base: Branches.BaseName, its first tag, or its
// short hash.
func (t *texts) baseName() string {
	if t.r.MergeBase == nil {
		return ""
	}
	if t.in.Branches.BaseName != "" {
		return t.in.Branches.BaseName
	}
	if d := t.details[t.r.MergeBase.Hash]; len(d.Tags) > 0 {
		return d.Tags[0]
	}
	return shortOf(*t.r.MergeBase)
}

// sideName names a side of history: "11.8" or "the 11.8.6 side".
func (t *texts) sideName(side string) string {
	switch side {
	case SideGood:
		return orDefault(t.in.Branches.Good, "the "+t.good()+" side")
	case SideBad:
		if t.r.MergeBase == nil {
			return orDefault(t.in.Branches.Bad, t.good()+".."+t.bad())
		}
		return orDefault(t.in.Branches.Bad, "the "+t.bad()+" side")
	}
	return side
}

// link renders a commit as a Markdown link to the web URL, or as code.
func (t *texts) link(c bisect.Commit) string {
	if u := commitURL(t.base, c.Hash); u != "" {
		return "[`" + shortOf(c) + "`](" + u + ")"
	}
	return "`" + shortOf(c) + "`"
}

// named renders a commit as its link and its subject in quotes.
func (t *texts) named(c bisect.Commit) string {
	if c.Subject == "" {
		return t.link(c)
	}
	return t.link(c) + " “" + mdEscape(c.Subject) + "”"
}

func (t *texts) mean(c *bisect.Commit) (bisect.Measured, bool) {
	if c == nil {
		return bisect.Measured{}, false
	}
	m, ok := t.means[c.Hash]
	return m, ok
}

// titleMax is the length a title should stay under (issue trackers
// truncate longer ones); the culprit's subject is left out to fit.
const titleMax = 100

// title says what changed, by how much, between which versions, and
// names the culprit: under titleMax characters where it can be.
func (t *texts) title() string {
	w := t.workload()
	if t.r.Status == bisect.StatusNotReproduced {
		return fitTitle(fmt.Sprintf("%s: no %s change reproduced between %s and %s", w, t.mt.noun(), t.good(), t.bad()), w)
	}
	d := t.endpoints().delta
	s := fmt.Sprintf("%s: %s is %s %s than %s", w, t.bad(), absPct(d), t.mt.comparative(d), t.good())
	if t.mt.isInstructions() {
		s = fmt.Sprintf("%s: %s runs %s %s than %s", w, t.bad(), absPct(d), t.mt.comparative(d), t.good())
	}
	cs := t.r.Culprits
	switch {
	case len(t.r.Gradual) > 0:
		g := t.r.Gradual[0]
		return fitTitle(fmt.Sprintf("%s; gradual over %s %s..%s", s, plural(len(g.Commits), "commit"), shortOf(g.Low), shortOf(g.High)), w)
	case len(cs) == 0 && t.r.Status == bisect.StatusUnderpowered:
		return fitTitle(s+" (below what the bisect could resolve)", w)
	case len(cs) == 0:
		return fitTitle(s+" (culprit not pinned down)", w)
	case len(cs) == 1:
		long := s + "; " + t.culpritPhrase(cs[0], true)
		if utf8.RuneCountInString(long) <= titleMax {
			return long
		}
		return fitTitle(s+"; "+t.culpritPhrase(cs[0], false), w)
	}
	phrases := make([]string, len(cs))
	shorts := make([]string, len(cs))
	for i, c := range cs {
		phrases[i], shorts[i] = t.culpritPhrase(c, false), shortOf(c.Commit)
	}
	if long := s + "; " + strings.Join(phrases, ", "); utf8.RuneCountInString(long) <= titleMax {
		return long
	}
	return fitTitle(s+"; culprits "+strings.Join(shorts, ", "), w)
}

// fitTitle drops the workload prefix ("oltp_point_select: ") from a title
// longer than titleMax, then shortens "instructions per query".
func fitTitle(s, workload string) string {
	if utf8.RuneCountInString(s) > titleMax {
		s = strings.TrimPrefix(s, workload+": ")
	}
	if utf8.RuneCountInString(s) > titleMax {
		s = strings.Replace(s, "instructions per query", "instructions/query", 1)
	}
	return s
}

// culpritPhrase names a culprit for the title: "12.0 lacks improvement
// 83a48d2bc84 (AHI fixup) from 11.8", "regression 6c3d8e1f2a4 on 12.0".
func (t *texts) culpritPhrase(c bisect.Culprit, subject bool) string {
	kind := "improvement"
	if c.Regression {
		kind = "regression"
	}
	if c.Gradual {
		kind = "gradual step"
	}
	s := kind + " " + shortOf(c.Commit)
	if subject && c.Commit.Subject != "" {
		s += " (" + c.Commit.Subject + ")"
	}
	switch {
	case c.Branch == SideGood && t.missingOnBad(c):
		s = t.sideName(SideBad) + " lacks " + s + " from " + t.sideName(SideGood)
	case t.r.MergeBase != nil:
		s += " on " + t.sideName(c.Branch)
	}
	return s
}

// missingOnBad is true for a good-side culprit checked and absent on bad.
func (t *texts) missingOnBad(c bisect.Culprit) bool {
	if c.CheckedBadBranch {
		return c.EquivalentOnBad == nil
	}
	p := t.details[c.Commit.Hash].OtherBranch
	return p != nil && !p.Present
}

// endpointFigures are the endpoints as measured: the medians and counts
// of all their valid runs (the endpoint test decided on the first of
// them; the search and the verification may have measured them again).
type endpointFigures struct {
	good, bad         float64 // medians (means in documents without medians)
	word              string  // "median" or "mean"
	goodRuns, badRuns int
	delta             float64 // bad/good - 1
	// again is true when the endpoints have more runs than the test.
	again bool
}

// endpoints returns the endpoints' figures from all their valid runs in
// Result.Commits, or the endpoint test's when a commit is missing there.
func (t *texts) endpoints() endpointFigures {
	e := t.r.Endpoints
	f := endpointFigures{goodRuns: e.OldRuns, badRuns: e.NewRuns, delta: e.Delta}
	f.good, f.bad, f.word = levels(e)
	g, okG := t.means[t.r.Good.Hash]
	b, okB := t.means[t.r.Bad.Hash]
	gs, bs := validSamples(g), validSamples(b)
	if !okG || !okB || len(gs) == 0 || len(bs) == 0 {
		return f
	}
	if len(gs) == e.OldRuns && len(bs) == e.NewRuns {
		return f // the test's own runs: its figures exactly
	}
	f.good, f.bad, f.goodRuns, f.badRuns, f.word = medianOf(g), medianOf(b), len(gs), len(bs), "median"
	if f.good > 0 {
		f.delta = f.bad/f.good - 1
	}
	f.again = true
	return f
}

// endpointLine is the first summary line: the endpoints' change, with the
// runs each endpoint really has.
func (t *texts) endpointLine() string {
	e, f := t.r.Endpoints, t.endpoints()
	head := fmt.Sprintf("%s %s %s from %s on %s to %s on %s: %s",
		upperFirst(f.word), t.mt.noun(), moved(f.good, f.bad), t.mt.value(f.good), t.good(), t.mt.value(f.bad), t.bad(), pct(f.delta))
	if !f.again {
		return head + fmt.Sprintf(" (95 %% CI %s to %s; Mann-Whitney p = %s; %d + %d runs).",
			pct(e.CILow), pct(e.CIHigh), pValue(e.P), e.OldRuns, e.NewRuns)
	}
	return head + fmt.Sprintf(" (%d + %d runs; the endpoint test on the first %d + %d: %s, 95 %% CI %s to %s, Mann-Whitney p = %s).",
		f.goodRuns, f.badRuns, e.OldRuns, e.NewRuns, pct(e.Delta), pct(e.CILow), pct(e.CIHigh), pValue(e.P))
}

// summary is the two-line summary.
func (t *texts) summary(cv []CulpritView) []string {
	second := ""
	c := t.r.Config
	switch t.r.Status {
	case bisect.StatusNotReproduced:
		second = fmt.Sprintf("The endpoints do not differ by the test (alpha %g) and by the minimum effect of %s: there is nothing to bisect.",
			c.Alpha, absPct(c.MinEffect))
	case bisect.StatusUnderpowered:
		second = fmt.Sprintf("The step is smaller than %d runs per commit can classify (smallest detectable step %s): the bisect stopped; rerun with --force or a quieter machine.",
			c.MaxRuns, absPct(t.r.Power.MinDetectable))
	default:
		second = t.culpritSentence(cv)
	}
	return []string{t.endpointLine(), second}
}

func (t *texts) culpritSentence(cv []CulpritView) string {
	if len(t.r.Gradual) > 0 {
		return t.gradualSentence(cv)
	}
	if len(cv) == 0 {
		return fmt.Sprintf("No single commit could be pinned down: %s left candidate ranges (see Technical analysis).",
			plural(len(t.r.Skipped), "skipped commit"))
	}
	parts := make([]string, len(cv))
	for i, c := range cv {
		p := fmt.Sprintf("%s (%s, %s, on %s", t.named(bisect.Commit{Hash: c.Hash, Short: c.Short, Subject: c.Subject}),
			pct(c.Effect.Delta), t.mt.changeWord(c.Regression), c.SideName)
		if c.Presence != "" {
			p += "; " + c.Presence
		}
		parts[i] = p + ")"
	}
	word := "culprit"
	if len(cv) > 1 {
		word = "culprits"
	}
	return fmt.Sprintf("Bisecting found %d %s: %s.", len(cv), word, strings.Join(parts, "; "))
}

// gradualSentence is the second summary line of a gradual change: the
// range is the answer; the verified steps in it are named as steps.
func (t *texts) gradualSentence(cv []CulpritView) string {
	var ranges, steps, others []string
	for _, g := range t.r.Gradual {
		ranges = append(ranges, fmt.Sprintf("over %s from %s to %s (%s on %s)",
			plural(len(g.Commits), "commit"), t.link(g.Low), t.link(g.High), pct(g.Delta), t.sideName(g.Branch)))
	}
	for _, c := range cv {
		name := t.link(bisect.Commit{Hash: c.Hash, Short: c.Short})
		if c.Gradual {
			steps = append(steps, fmt.Sprintf("%s (%s)", name, pct(c.Effect.Delta)))
		} else {
			others = append(others, fmt.Sprintf("%s (%s, %s)", name, pct(c.Effect.Delta), t.mt.changeWord(c.Regression)))
		}
	}
	s := "The change is gradual, " + strings.Join(ranges, "; ") + ": no single commit is the culprit."
	if len(steps) > 0 {
		s += " Verified steps within it: " + strings.Join(steps, ", ") + "."
	}
	if len(others) > 0 {
		s += " Besides, " + strings.Join(others, ", ") + "."
	}
	return s
}

// presence says whether a culprit's change is on the other side, as a
// phrase completing "the change is …".
func (t *texts) presence(c bisect.Culprit) string {
	if t.r.MergeBase == nil {
		return ""
	}
	other := SideGood
	if c.Branch == SideGood {
		other = SideBad
	}
	if c.Branch == SideGood && c.CheckedBadBranch {
		if c.EquivalentOnBad != nil {
			return "present on " + t.sideName(other) + " as " + t.link(*c.EquivalentOnBad)
		}
		return "not present on " + t.sideName(other)
	}
	p := t.details[c.Commit.Hash].OtherBranch
	switch {
	case p == nil:
		return "not checked against " + t.sideName(other)
	case p.Present && p.Equivalent != nil:
		return "present on " + t.sideName(other) + " as " + t.link(*p.Equivalent)
	case p.Present:
		return "present on " + t.sideName(other)
	}
	return "not present on " + t.sideName(other)
}

// upperFirst capitalises the first letter of s.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
