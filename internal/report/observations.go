package report

import (
	"math"
	"strings"

	"github.com/perfbisect/perfbisect/internal/bisect"
	"github.com/perfbisect/perfbisect/internal/stats"
)

// An Observation is one measured commit, a row of the commit-level table
// and a point of the chart.
type Observation struct {
	Hash    string `json:"hash"`
	Short   string `json:"short"`
	Subject string `json:"subject"`
	URL     string `json:"url,omitempty"`
	// SameBinaryAs is the short hash of the measured commit whose
	// byte-identical binary this commit shares, runs included; "" when it
	// has a binary of its own.
	SameBinaryAs string `json:"same_binary_as,omitempty"`
	// Side is SideBase, SideGood or SideBad; "" when History omits it.
	Side string `json:"side,omitempty"`
	// Verdict is GOOD (at the good level), BAD (at the bad level), MID
	// (between two culprits of one side, or a merge base like neither
	// end) or SKIP.
	Verdict string `json:"verdict"`
	// Median, Lo and Hi are the median TPS and its distribution-free 95 %
	// interval (HasCI false: too few runs for one).
	Median float64 `json:"median"`
	Lo     float64 `json:"ci_low,omitempty"`
	Hi     float64 `json:"ci_high,omitempty"`
	HasCI  bool    `json:"has_ci"`
	Mean   float64 `json:"mean"`
	// Runs counts the samples the tests used (fresh, not outliers);
	// Reused and Outliers those shown but never tested.
	Runs     int `json:"runs"`
	Reused   int `json:"reused,omitempty"`
	Outliers int `json:"outliers,omitempty"`
	// Note says what the commit is to the bisect: an endpoint, the merge
	// base, a culprit, why it was skipped.
	Note string `json:"note,omitempty"`
}

// Verdict words of the observation table.
const (
	VerdictGood = "GOOD"
	VerdictBad  = "BAD"
	VerdictMid  = "MID"
	VerdictSkip = "SKIP"
)

// ordered returns the measured commits in history order with their sides.
func ordered(in Input) ([]bisect.Measured, []string) {
	byHash := make(map[string]bisect.Measured, len(in.Result.Commits))
	for _, m := range in.Result.Commits {
		byHash[m.Commit.Hash] = m
	}
	var out []bisect.Measured
	var sides []string
	seen := map[string]bool{}
	for _, h := range in.History {
		if m, ok := byHash[h.Hash]; ok && !seen[h.Hash] {
			seen[h.Hash] = true
			out, sides = append(out, m), append(sides, h.Side)
		}
	}
	for _, m := range in.Result.Commits {
		if !seen[m.Commit.Hash] {
			seen[m.Commit.Hash] = true
			out, sides = append(out, m), append(sides, "")
		}
	}
	return out, sides
}

// observations builds the commit-level table in history order.
func observations(in Input, base string) []Observation {
	ms, sides := ordered(in)
	skipped := map[string]bisect.Skip{}
	for _, s := range in.Result.Skipped {
		skipped[s.Commit.Hash] = s
	}
	details := map[string]CommitDetails{}
	for _, d := range in.Details {
		details[d.Hash] = d
	}
	lv := newLeveler(in, ms, sides)
	obs := make([]Observation, 0, len(ms))
	for i, m := range ms {
		o := Observation{
			Hash: m.Commit.Hash, Short: shortOf(m.Commit), Subject: m.Commit.Subject,
			URL: commitURL(base, m.Commit.Hash), Side: sides[i], Mean: m.Mean, Runs: len(validSamples(m)),
			Reused: len(m.Reused), Outliers: len(m.Outliers),
		}
		o.Median, o.Lo, o.Hi, o.HasCI = medianCI(validSamples(m))
		o.Note = joinNotes(noteFor(in, m), extraRunsNote(m))
		if d := details[m.Commit.Hash]; d.SameBinaryAs != "" {
			o.SameBinaryAs = short(d.SameBinaryAs)
			o.Note = joinNotes(o.Note, sameBinaryNote(d))
		}
		if s, ok := skipped[m.Commit.Hash]; ok || isSkipVerdict(m.Verdicts) {
			o.Verdict = VerdictSkip
			o.Note = skipNote(s, m)
		} else {
			o.Verdict = lv.level(i, m)
		}
		obs = append(obs, o)
	}
	return obs
}

// medianCI is stats.MedianCI: the median and its distribution-free 95 %
// interval (6 or more samples).
func medianCI(samples []float64) (median, lo, hi float64, ok bool) {
	return stats.MedianCI(samples)
}

func isSkipVerdict(vs []bisect.Verdict) bool {
	for _, v := range vs {
		switch v {
		case bisect.VerdictAmbiguous, bisect.VerdictUnbuildable, bisect.VerdictCrashed:
			return true
		}
	}
	return false
}

func skipNote(s bisect.Skip, m bisect.Measured) string {
	reason := string(s.Reason)
	if reason == "" {
		for _, v := range m.Verdicts {
			if isSkipVerdict([]bisect.Verdict{v}) {
				reason = string(v) // not a midpoint's like-low/like-high
			}
		}
	}
	detail := s.Detail
	if detail == "" {
		detail = m.Error
	}
	if detail == "" {
		return "skipped: " + reason
	}
	return "skipped: " + reason + " (" + firstLine(detail) + ")"
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

// noteFor names the role of a measured commit.
func noteFor(in Input, m bisect.Measured) string {
	r := in.Result
	var notes []string
	switch m.Commit.Hash {
	case r.Good.Hash:
		notes = append(notes, "good ("+in.Request.Good+")")
	case r.Bad.Hash:
		notes = append(notes, "bad ("+in.Request.Bad+")")
	}
	if r.MergeBase != nil && m.Commit.Hash == r.MergeBase.Hash {
		notes = append(notes, "merge base")
	}
	for _, c := range r.Culprits {
		if c.Commit.Hash == m.Commit.Hash {
			notes = append(notes, "culprit")
		}
	}
	return strings.Join(notes, ", ")
}

// extraRunsNote mentions a commit's samples that no test used.
func extraRunsNote(m bisect.Measured) string {
	var parts []string
	if n := len(m.Reused); n > 0 {
		parts = append(parts, plural(n, "reused run")+" not tested")
	}
	if n := len(m.Outliers); n > 0 {
		parts = append(parts, plural(n, "outlier")+" excluded")
	}
	return strings.Join(parts, ", ")
}

// joinNotes joins two notes with a semicolon, either may be empty.
func joinNotes(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + "; " + b
}

// A leveler decides whether a measured commit sits at the good or the bad
// level: by its position relative to the culprits on its side of history
// (Input.History), else by the endpoint mean nearest to its own.
type leveler struct {
	in        Input
	pos       map[string]int    // history position of each measured commit
	culprits  map[string][]int  // side -> positions of its culprits
	baseLevel string            // level of the merge base (or of good)
	sides     map[string]string // hash -> side
}

func newLeveler(in Input, ms []bisect.Measured, sides []string) *leveler {
	lv := &leveler{in: in, pos: map[string]int{}, culprits: map[string][]int{}, sides: map[string]string{}}
	for i, m := range ms {
		lv.pos[m.Commit.Hash] = i
		lv.sides[m.Commit.Hash] = sides[i]
	}
	for _, c := range in.Result.Culprits {
		if p, ok := lv.pos[c.Commit.Hash]; ok {
			lv.culprits[c.Branch] = append(lv.culprits[c.Branch], p)
		}
	}
	lv.baseLevel = VerdictGood
	switch in.Result.MergeBaseLike {
	case "bad":
		lv.baseLevel = VerdictBad
	case "neither":
		lv.baseLevel = VerdictMid
	}
	return lv
}

// level returns GOOD, BAD or MID for measured commit i.
func (lv *leveler) level(i int, m bisect.Measured) string {
	r := lv.in.Result
	switch {
	case m.Commit.Hash == r.Good.Hash:
		return VerdictGood
	case m.Commit.Hash == r.Bad.Hash:
		return VerdictBad
	case r.MergeBase != nil && m.Commit.Hash == r.MergeBase.Hash:
		return lv.baseLevel
	}
	side := lv.sides[m.Commit.Hash]
	if side == "" || side == SideBase {
		return lv.nearest(m.Mean)
	}
	before := 0
	for _, p := range lv.culprits[side] {
		if p <= i {
			before++
		}
	}
	total := len(lv.culprits[side])
	start, end := lv.baseLevel, VerdictBad
	if r.MergeBase == nil {
		start = VerdictGood
	}
	if side == SideGood {
		end = VerdictGood
	}
	switch {
	case total == 0:
		return lv.nearest(m.Mean)
	case before == 0:
		return start
	case before == total:
		return end
	default:
		return VerdictMid
	}
}

// nearest returns the level (good or bad endpoint mean) closest to mean:
// the fallback for a commit whose side of history the Input does not give.
func (lv *leveler) nearest(mean float64) string {
	r := lv.in.Result
	good, bad := r.Endpoints.OldMean, r.Endpoints.NewMean
	for _, m := range r.Commits { // all of the endpoints' runs, when measured again
		switch m.Commit.Hash {
		case r.Good.Hash:
			good = m.Mean
		case r.Bad.Hash:
			bad = m.Mean
		}
	}
	if math.Abs(mean-good) <= math.Abs(mean-bad) {
		return VerdictGood
	}
	return VerdictBad
}

func shortOf(c bisect.Commit) string {
	if c.Short != "" {
		return c.Short
	}
	return short(c.Hash)
}
