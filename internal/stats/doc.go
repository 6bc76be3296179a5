// Package stats is perfbisect's one home for statistics: location and
// scale (mean, median, quantiles, MAD, a pooled robust scale), the
// Mann-Whitney U test, bootstrap intervals of a ratio of medians, the
// order-statistic interval of a median, outlier detection and normal
// quantiles. The bisect engine and the report both use it.
//
// golang.org/x/perf/benchmath was tried and not adopted: of what the
// engine needs it offers only the Mann-Whitney p-value (via go-moremath),
// which this package computes identically (exact without ties, normal
// approximation otherwise; the tests pin it to go-moremath's values), and
// none of the robust scale, bootstrap or sequential pieces; two modules
// for one function were not worth it.
//
// Every function takes its input by value and never reorders the
// caller's slice.
package stats
