package callgrind

import (
	"math"
	"sort"
	"strings"
)

// A Side is one profile of a comparison and the number of queries it
// covers, so that costs compare per query.
type Side struct {
	Profile *Profile
	Queries int64
}

// perQuery returns v divided by the side's queries.
func (s Side) perQuery(v int64) float64 {
	if s.Queries <= 0 {
		return float64(v)
	}
	return float64(v) / float64(s.Queries)
}

// A FuncDelta is one function's cost per query in two profiles.
type FuncDelta struct {
	Name   string  `json:"name"`
	File   string  `json:"file"`
	Before float64 `json:"before"` // per query; 0 when absent
	After  float64 `json:"after"`
	Delta  float64 `json:"delta"` // After - Before
	// Share is Delta as a fraction of the total change per query (its
	// sign tells whether it goes with the total or against it); 0 when
	// the totals are equal.
	Share float64 `json:"share"`
}

// A Diff says where the cost per query went between two profiles.
type Diff struct {
	Event  string  `json:"event"`  // "Ir": instructions
	Before float64 `json:"before"` // total per query
	After  float64 `json:"after"`
	Delta  float64 `json:"delta"`
	// Self and Inclusive are the functions whose self and inclusive cost
	// per query changed most, largest absolute change first. Inclusive
	// leaves out the functions that hold nearly everything counted in
	// both profiles (99 % of the total or more: the thread's entry chain,
	// whose inclusive cost changes with any change at all).
	Self      []FuncDelta `json:"self"`
	Inclusive []FuncDelta `json:"inclusive"`
}

// Compare returns the diff of event per query from before to after, with
// at most top functions in each list (all with top <= 0). Changes smaller
// than minDelta per query are left out: with near-deterministic counts,
// a fraction of an instruction per query is noise.
func Compare(before, after Side, event string, top int, minDelta float64) Diff {
	d := Diff{Event: event, Before: before.perQuery(before.Profile.Total(event)),
		After: after.perQuery(after.Profile.Total(event))}
	d.Delta = d.After - d.Before
	i, j := before.Profile.eventIndex(event), after.Profile.eventIndex(event)
	if i < 0 || j < 0 {
		return d
	}
	pick := func(f *Function, k int, inclusive bool) int64 {
		if f == nil {
			return 0
		}
		v := f.Self
		if inclusive {
			v = f.Inclusive
		}
		if k < len(v) {
			return v[k]
		}
		return 0
	}
	for _, inclusive := range []bool{false, true} {
		var out []FuncDelta
		for _, key := range unionKeys(before.Profile, after.Profile) {
			fb, fa := before.Profile.Functions[key], after.Profile.Functions[key]
			b, a := before.perQuery(pick(fb, i, inclusive)), after.perQuery(pick(fa, j, inclusive))
			if math.Abs(a-b) < minDelta || a == b {
				continue
			}
			if inclusive && b >= 0.99*d.Before && a >= 0.99*d.After {
				continue // contains everything: says nothing
			}
			fd := FuncDelta{Before: b, After: a, Delta: a - b}
			fd.Name, fd.File = nameFile(fb, fa)
			if d.Delta != 0 {
				fd.Share = fd.Delta / d.Delta
			}
			out = append(out, fd)
		}
		sort.SliceStable(out, func(x, y int) bool {
			ax, ay := math.Abs(out[x].Delta), math.Abs(out[y].Delta)
			if ax != ay {
				return ax > ay
			}
			return out[x].Name < out[y].Name
		})
		if top > 0 && len(out) > top {
			out = out[:top]
		}
		if inclusive {
			d.Inclusive = out
		} else {
			d.Self = out
		}
	}
	return d
}

// nameFile names a function from whichever profile has it, preferring a
// known file.
func nameFile(fb, fa *Function) (string, string) {
	f := fa
	if f == nil || (fb != nil && f.File == "???" && fb.File != "???") {
		f = fb
	}
	return f.Name, f.File
}

// unionKeys returns the keys of both profiles' functions, sorted.
func unionKeys(a, b *Profile) []string {
	seen := make(map[string]bool, len(a.Functions))
	var keys []string
	for _, p := range []*Profile{a, b} {
		for k := range p.Functions {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	sort.Strings(keys)
	return keys
}

// Sum returns one profile holding the costs of all of ps added up (the
// samples of one commit, say): totals, self and inclusive costs and calls
// (a summary: line is not kept).
// The profiles must have the same events; the first one's are kept.
func Sum(ps ...*Profile) *Profile {
	out := &Profile{Functions: map[string]*Function{}}
	if len(ps) == 0 {
		return out
	}
	out.Events, out.Cmd = ps[0].Events, ps[0].Cmd
	n := len(out.Events)
	add := func(dst *[]int64, src []int64) {
		*dst = grow(*dst, n)
		addTo(*dst, src)
	}
	out.Totals = make([]int64, n)
	for _, p := range ps {
		for i, e := range out.Events {
			out.Totals[i] += p.Total(e)
		}
		add(&out.self, p.self)
		for key, f := range p.Functions {
			g := out.Functions[key]
			if g == nil {
				g = &Function{Name: f.Name, File: f.File, Object: f.Object, defined: f.defined}
				out.Functions[key] = g
			}
			add(&g.Self, f.Self)
			add(&g.Inclusive, f.Inclusive)
			g.Calls += f.Calls
		}
	}
	return out
}

// TrimFiles makes the file names under dir relative to it, so a report
// says storage/innobase/row/row0sel.cc, not the build's work directory.
func (d *Diff) TrimFiles(dir string) {
	if dir == "" {
		return
	}
	prefix := strings.TrimSuffix(dir, "/") + "/"
	for _, fs := range [][]FuncDelta{d.Self, d.Inclusive} {
		for i := range fs {
			fs[i].File = strings.TrimPrefix(fs[i].File, prefix)
		}
	}
}
