package changepoint

import (
	"errors"
	"fmt"
	"slices"
	"sort"
)

// Options are the detector's settings. Copy DefaultOptions and change
// what you need.
type Options struct {
	// Window is the length of the sliding window of the split pass; the
	// window moves half its length at a time. Default 30 (points).
	Window int `json:"window"`
	// PValue is the final significance threshold of the merge pass.
	// Default 0.001.
	PValue float64 `json:"p_value"`
	// WeakPValue is the split pass's threshold for weak change points;
	// 0 means Otava's rule: 10 × PValue below 0.05, 2 × PValue below 0.5.
	WeakPValue float64 `json:"weak_p_value,omitempty"`
	// HalfWindows runs the split pass a second time with windows of half
	// the length. A long window is sensitive to small steps, but its
	// t-test can miss a step between two others (a drop and a rise
	// inside one window make a mixed side); short windows see each step
	// on its own. Default false (Otava's single pass).
	HalfWindows bool `json:"half_windows,omitempty"`
	// MinMagnitude is the smallest relative change kept (Stats.Magnitude);
	// default 0: significance alone decides.
	MinMagnitude float64 `json:"min_magnitude"`
	// Refine moves each final change point to the split of its interval
	// (between its neighbours) that best separates the two means (the
	// least-squares location of a step), then re-tests it. E-divisive's
	// split maximises an energy distance, which can sit a few points off
	// a small step. Default false (Otava's locations).
	Refine bool `json:"refine,omitempty"`
	// RefineWithin, with Refine, places each change point where the step
	// most probably lies within this many points of it (the posterior of
	// a single step's location, summed over a window), rather than at the
	// single most likely split: the right choice when a location within
	// a few points is what counts, as for a nightly bot that bisects a few
	// nights either side. 0 (the default): the least-squares split.
	RefineWithin int `json:"refine_within,omitempty"`
}

// DefaultOptions are the default Options.
var DefaultOptions = Options{Window: 30, PValue: 0.001}

// Validate rejects nonsense settings.
func (o Options) Validate() error {
	var errs []error
	if o.Window < 3 {
		errs = append(errs, fmt.Errorf("window %d: want at least 3 points", o.Window))
	}
	if !(o.PValue > 0 && o.PValue < 1) {
		errs = append(errs, fmt.Errorf("p-value %v: want (0, 1)", o.PValue))
	}
	if o.WeakPValue != 0 && !(o.WeakPValue >= o.PValue && o.WeakPValue < 1) {
		errs = append(errs, fmt.Errorf("weak p-value %v: want [p-value, 1)", o.WeakPValue))
	}
	if o.RefineWithin < 0 || (o.RefineWithin > 0 && o.RefineWithin >= o.Window) {
		errs = append(errs, fmt.Errorf("refine within %d: want 0 to window-1 points", o.RefineWithin))
	}
	if o.MinMagnitude < 0 {
		errs = append(errs, fmt.Errorf("min magnitude %v: want >= 0", o.MinMagnitude))
	}
	if len(errs) > 0 {
		return fmt.Errorf("change point options: %w", errors.Join(errs...))
	}
	return nil
}

func (o Options) weak() float64 {
	switch {
	case o.WeakPValue != 0:
		return o.WeakPValue
	case o.PValue < 0.05:
		return o.PValue * 10
	case o.PValue < 0.5:
		return o.PValue * 2
	}
	return o.PValue
}

// Detect returns the change points of series, oldest first.
func Detect(series []float64, o Options) []ChangePoint {
	var d Detector
	d.Options = o
	return d.Append(series...)
}

// A Detector finds change points in a series that grows a point at a
// time (one a night): Append re-scans only the tail and keeps the weak
// change points found earlier. The zero Detector with Options set is
// ready to use.
type Detector struct {
	Options Options
	series  []float64
	weak    []ChangePoint
}

// Len is the number of points appended so far.
func (d *Detector) Len() int { return len(d.series) }

// Append adds points to the series and returns the change points of the
// whole series.
func (d *Detector) Append(points ...float64) []ChangePoint {
	old := len(d.series)
	d.series = append(d.series, points...)
	start := d.rescanFrom(old, len(points))
	weak := slices.DeleteFunc(d.weak, func(c ChangePoint) bool { return c.Index >= start })
	weak = d.split(start, weak, d.Options.Window)
	if d.Options.HalfWindows && d.Options.Window >= 6 {
		weak = d.split(start, weak, d.Options.Window/2)
	}
	for k := range weak {
		retest(d.series, weak, k, 0, len(d.series))
	}
	d.weak = weak
	final := merge(d.series, slices.Clone(weak), d.Options.PValue, d.Options.MinMagnitude)
	if d.Options.Refine {
		final = refine(d.series, final, d.Options.RefineWithin)
	}
	return final
}

// refine moves each change point to its interval's likeliest split
// (within w points; w = 0: the least-squares split) and re-tests all of
// them.
func refine(z []float64, cps []ChangePoint, w int) []ChangePoint {
	for k := range cps {
		lo, hi := bounds(cps, k, 0, len(z))
		cps[k].Index = likelySplit(z[lo:hi], w) + lo
	}
	for k := range cps {
		retest(z, cps, k, 0, len(z))
	}
	return cps
}

// bestMeanSplit returns the j in [1, len(z)) maximising the between-group
// sum of squares n1·n2/(n1+n2)·(mean1-mean2)².
func bestMeanSplit(z []float64) int {
	total := 0.0
	for _, x := range z {
		total += x
	}
	best, at, left := -1.0, 1, 0.0
	n := float64(len(z))
	for j := 1; j < len(z); j++ {
		left += z[j-1]
		n1 := float64(j)
		d := left/n1 - (total-left)/(n-n1)
		if ss := n1 * (n - n1) / n * d * d; ss > best {
			best, at = ss, j
		}
	}
	return at
}

// rescanFrom is where the split pass restarts after new points: a few
// windows back from the end, at the last weak change point or window
// start before that (0 for a first scan).
func (d *Detector) rescanFrom(old, added int) int {
	if old == 0 || d.Options.Window <= 0 {
		return 0
	}
	w := d.Options.Window
	back := (added/w + 4) * w
	limit := len(d.series) - back
	start := 0
	for _, c := range d.weak {
		if c.Index < limit {
			start = c.Index
		}
	}
	step := max(w/2, 1)
	for s := 0; s < limit; s += step {
		start = max(start, s)
	}
	return start
}

// split is the split pass from start: windows of Window points, half a
// window apart (restarting at the last change point found in a window),
// each divided at the weak p-value. Change points are unioned by index.
func (d *Detector) split(start int, weak []ChangePoint, w int) []ChangePoint {
	z := d.series
	step := max(w/2, 1)
	seen := map[int]bool{}
	for _, c := range weak {
		seen[c.Index] = true
	}
	for start < len(z) {
		end := min(start+w, len(z))
		found := divide(z, start, end, d.Options.weak())
		last := 0
		for _, c := range found {
			if !seen[c.Index] {
				seen[c.Index] = true
				weak = append(weak, c)
			}
			last = c.Index
		}
		start = max(last, start+step)
	}
	sort.Slice(weak, func(i, j int) bool { return weak[i].Index < weak[j].Index })
	return weak
}

// merge is the merge pass: while some change point fails (p-value at or
// above maxP, else magnitude at or below minMag), remove the weakest and
// re-test both of its neighbours against their new intervals.
func merge(z []float64, cps []ChangePoint, maxP, minMag float64) []ChangePoint {
	for len(cps) > 0 {
		k := weakest(cps, maxP, minMag)
		if k < 0 {
			return cps
		}
		cps = slices.Delete(cps, k, k+1)
		if k-1 >= 0 {
			retest(z, cps, k-1, 0, len(z)) // the left neighbour (Otava skips it)
		}
		if k < len(cps) {
			retest(z, cps, k, 0, len(z)) // the right neighbour
		}
	}
	return cps
}

// weakest returns the position of the change point to remove next, or -1
// when all pass: the highest p-value when it is not below maxP, else the
// smallest magnitude when it is not above minMag.
func weakest(cps []ChangePoint, maxP, minMag float64) int {
	k := 0
	for i, c := range cps {
		if c.PValue > cps[k].PValue {
			k = i
		}
	}
	if !(cps[k].PValue < maxP) {
		return k
	}
	k = 0
	for i, c := range cps {
		if c.Magnitude() < cps[k].Magnitude() {
			k = i
		}
	}
	if cps[k].Magnitude() > minMag {
		return -1
	}
	return k
}
