// Package changepoint finds the nights where a benchmark series changed
// level: E-divisive means with a Student's t-test, as Apache Otava (and
// the Hunter paper, Fleming et al. 2023) do it.
//
// Two passes. The split pass slides a window of Options.Window points
// over the series (half a window a step) and, inside each window, splits
// recursively at the point that maximises the E-divisive statistic Q̂
// (Matteson and James 2014, α = 1) while the t-test of the two sides is
// below the weak p-value. The merge pass re-tests every such "weak"
// change point against its neighbours' intervals over the whole series
// and removes the weakest (the highest p-value above Options.PValue,
// else the smallest relative change below Options.MinMagnitude), one at a
// time, re-testing BOTH neighbours of each removed point (Otava re-tests
// only the right one), until every remaining point passes. Options.Refine
// then moves each change point to the least-squares split between its
// neighbours, or, with Options.RefineWithin w, to the split where the
// posterior of a single step's location has the most mass within w
// points (a small step's location is uncertain by a few points).
//
// A Detector keeps its weak change points, so appending a night re-scans
// only the tail of the series. Change points go both ways: a drop and a
// rise are both reported; the caller's metric says which is a regression.
package changepoint
