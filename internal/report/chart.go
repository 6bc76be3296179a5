package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// A Chart is the median TPS of each measured commit in history order.
type Chart struct {
	Title  string       `json:"title"`
	Points []ChartPoint `json:"points"`
	// YMin and YMax are the axis range: the data plus a margin, rounded.
	YMin float64 `json:"y_min"`
	YMax float64 `json:"y_max"`
	// Unit labels the y axis ("TPS", "instructions/query"); "" is TPS.
	Unit string `json:"unit,omitempty"`
}

// unit is the y axis's unit.
func (ch Chart) unit() string { return orDefault(ch.Unit, "TPS") }

// A ChartPoint is one commit on the chart.
type ChartPoint struct {
	Label   string  `json:"label"` // short hash
	Row     int     `json:"row"`   // 1-based row of the observations table
	Median  float64 `json:"median"`
	Lo      float64 `json:"ci_low,omitempty"`
	Hi      float64 `json:"ci_high,omitempty"`
	Verdict string  `json:"verdict"`
	// Side is the observation's side of history (base, good, bad; ""
	// unknown): points of different sides are not joined by one line.
	Side string `json:"side,omitempty"`
	// Culprit marks a culprit.
	Culprit bool `json:"culprit,omitempty"`
}

// chartOf plots every observation that has samples.
func chartOf(in Input, obs []Observation) Chart {
	order := "history order"
	if len(in.History) == 0 {
		order = "order measured"
	}
	unit := metricOf(in.Result.Config).unit()
	ch := Chart{Title: "Median " + unit + " per measured commit (" + order + ")", Unit: unit}
	if in.Benchmark.Workload != "" {
		ch.Title = in.Benchmark.Workload + ": median " + unit + " per measured commit (" + order + ")"
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, o := range obs {
		if o.Runs == 0 {
			continue
		}
		p := ChartPoint{Label: o.Short, Row: i + 1, Median: o.Median, Verdict: o.Verdict, Side: o.Side,
			Culprit: isCulprit(in.Result, o.Hash)}
		if o.HasCI {
			p.Lo, p.Hi = o.Lo, o.Hi
		}
		ch.Points = append(ch.Points, p)
		lo, hi = math.Min(lo, math.Min(o.Median, nonZero(p.Lo, o.Median))), math.Max(hi, math.Max(o.Median, p.Hi))
	}
	if len(ch.Points) > 0 {
		ch.YMin, ch.YMax = axisRange(lo, hi)
	}
	return ch
}

func nonZero(v, def float64) float64 {
	if v == 0 {
		return def
	}
	return v
}

// axisRange widens [lo, hi] by a quarter of its span on each side and
// rounds the ends to a power of ten below the span.
func axisRange(lo, hi float64) (float64, float64) {
	span := hi - lo
	if span <= 0 {
		span = math.Max(math.Abs(hi)*0.01, 1)
	}
	unit := math.Pow(10, math.Floor(math.Log10(span/2)))
	return math.Floor((lo-span/4)/unit) * unit, math.Ceil((hi+span/4)/unit) * unit
}

// mermaidMaxHashLabels is the most points the Mermaid chart labels with
// short hashes; beyond it labels are the table's row numbers, which fit.
const mermaidMaxHashLabels = 6

// Mermaid returns the chart as a Mermaid xychart-beta block (without the
// code fence), which GitHub renders, with a short title (Mermaid does not
// wrap it). Culprits' labels carry a "*". A chart of two lines of history
// (a non-ancestor bisect) is drawn as bars: xychart-beta has one x axis,
// and a line would join the last commit of one branch to the first of the
// other. The init directive gives the series a colour that shows on a
// white page (the default palette's first colour is nearly white).
func (ch Chart) Mermaid() string {
	var b strings.Builder
	b.WriteString("%%{init: {\"themeVariables\": {\"xyChart\": {\"plotColorPalette\": \"#0969da\"}}}}%%\n")
	b.WriteString("xychart-beta\n")
	title := "Median " + ch.unit() + " per measured commit"
	numbered := len(ch.Points) > mermaidMaxHashLabels
	if numbered {
		title += " (x: # in the table)"
	}
	if ch.hasCulprit() {
		title += ", * culprit"
	}
	fmt.Fprintf(&b, "    title %q\n", title)
	labels := make([]string, len(ch.Points))
	values := make([]string, len(ch.Points))
	for i, p := range ch.Points {
		l := p.Label
		if numbered {
			l = strconv.Itoa(p.Row)
		}
		if p.Culprit {
			l += "*"
		}
		labels[i] = strconv.Quote(l)
		values[i] = strconv.FormatFloat(p.Median, 'f', 1, 64)
	}
	fmt.Fprintf(&b, "    x-axis [%s]\n", strings.Join(labels, ", "))
	fmt.Fprintf(&b, "    y-axis \"median %s\" %s --> %s\n", ch.unit(), num(ch.YMin), num(ch.YMax))
	kind := "line"
	if ch.branched() {
		kind = "bar"
	}
	fmt.Fprintf(&b, "    %s [%s]\n", kind, strings.Join(values, ", "))
	return b.String()
}

func (ch Chart) hasCulprit() bool {
	for _, p := range ch.Points {
		if p.Culprit {
			return true
		}
	}
	return false
}

// branched reports whether the chart holds points of both sides of a
// non-ancestor bisect.
func (ch Chart) branched() bool {
	var good, bad bool
	for _, p := range ch.Points {
		good = good || p.Side == SideGood
		bad = bad || p.Side == SideBad
	}
	return good && bad
}

// lines returns the point indices to join, one slice per line of
// history: for a branched chart the merge base starts both the good and
// the bad line; otherwise all points form one line.
func (ch Chart) lines() [][]int {
	if !ch.branched() {
		all := make([]int, len(ch.Points))
		for i := range all {
			all[i] = i
		}
		return [][]int{all}
	}
	var base, good, bad []int
	for i, p := range ch.Points {
		switch p.Side {
		case SideBase:
			base = append(base, i)
		case SideGood:
			good = append(good, i)
		case SideBad:
			bad = append(bad, i)
		}
	}
	return [][]int{append(append([]int(nil), base...), good...), append(append([]int(nil), base...), bad...)}
}

// ticks returns evenly spaced round values within [lo, hi], at most about
// six: steps of 1, 2, 2.5 or 5 times a power of ten.
func ticks(lo, hi float64) []float64 {
	if hi <= lo {
		return []float64{lo}
	}
	raw := (hi - lo) / 5
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag * 10
	for _, m := range []float64{1, 2, 2.5, 5} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var out []float64
	for v := math.Ceil(lo/step) * step; v <= hi+step/1e9; v += step {
		out = append(out, v)
	}
	return out
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
