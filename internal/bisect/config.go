package bisect

import (
	"errors"
	"fmt"
)

// A Config holds the engine's statistical settings. Copy DefaultConfig
// and change what you need; every field's default is stated below.
type Config struct {
	// Metric is what a sample measures (name, unit, direction, noise
	// floor). The zero Metric means MetricTPS, so configs stored before
	// metrics existed keep their meaning. Default MetricTPS.
	Metric Metric `json:"metric,omitzero"`
	// MinEffect is the smallest relative change worth reporting: two
	// commits differ only when the test says so AND their means differ by
	// at least this fraction. Default 0.003 (0.3 %).
	MinEffect float64 `json:"min_effect"`
	// Alpha is the family-wise false-positive rate of each "do these two
	// commits differ" decision (endpoints, merge-base sides, remaining
	// ranges, verification), split over the sequential looks. Default 0.01.
	Alpha float64 `json:"alpha"`
	// ClassifyError is the error rate, each way, of the sequential test that
	// classifies a midpoint as like-low or like-high. Default 0.001.
	ClassifyError float64 `json:"classify_error"`
	// EndpointRuns is the number of runs per side at each look of an
	// endpoint comparison. Default 10.
	EndpointRuns int `json:"endpoint_runs"`
	// EndpointLooks is the number of looks of an endpoint comparison: at
	// most EndpointRuns*EndpointLooks runs per side. Default 3.
	EndpointLooks int `json:"endpoint_looks"`
	// MinRuns is the number of runs a midpoint gets before the sequential
	// test may stop. Default 3.
	MinRuns int `json:"min_runs"`
	// MaxRuns caps the runs spent classifying one midpoint; a midpoint still
	// undecided then is skipped. The power check compares the runs needed
	// at the measured step with it. Default 30.
	MaxRuns int `json:"max_runs"`
	// VerifyRuns is the number of fresh runs per side, interleaved, used to
	// verify each culprit against its parent. Default 20.
	VerifyRuns int `json:"verify_runs"`
	// MaxCulprits stops the search for further culprits after this many.
	// Default 3.
	MaxCulprits int `json:"max_culprits"`
	// Improvement says the user expects bad to be better than good (a
	// speed-up). The engine bisects either way; a mismatch is a warning.
	// Default false.
	Improvement bool `json:"improvement"`
	// Force bisects even when the step is below what MaxRuns can classify.
	// Default false.
	Force bool `json:"force"`
	// Seed seeds the bootstrap of confidence intervals, so a result is
	// reproducible. Default 1.
	Seed int64 `json:"seed"`
}

// DefaultConfig is the default Config.
var DefaultConfig = Config{
	Metric:        MetricTPS,
	MinEffect:     0.003,
	Alpha:         0.01,
	ClassifyError: 0.001,
	EndpointRuns:  10,
	EndpointLooks: 3,
	MinRuns:       3,
	MaxRuns:       30,
	VerifyRuns:    20,
	MaxCulprits:   3,
	Seed:          1,
}

// ForMetric returns DefaultConfig set up for m: for a near-deterministic
// metric (a noise floor of 0.05 % or more) fewer runs, so a midpoint costs
// two or three samples and an endpoint or a verification three a side
// (their comparisons use the means test on the floored spread).
func ForMetric(m Metric) Config {
	c := DefaultConfig
	c.Metric = m
	if m.NoiseFloor >= 0.0005 {
		c.EndpointRuns, c.MinRuns, c.VerifyRuns = 3, 2, 3
	}
	return c
}

// minComparedRuns is the fewest runs a side an endpoint or verification
// comparison may use: a Mann-Whitney p cannot go below 0.01 with fewer
// than 5; the floored means test of a near-deterministic metric can with 2.
func (c Config) minComparedRuns() int {
	if c.Metric.NoiseFloor > 0 {
		return 2
	}
	return 5
}

// leastVerifyRuns is the fewest runs a side of a verification's first
// look (verifySizes).
func (c Config) leastVerifyRuns() int {
	if c.Metric.NoiseFloor > 0 {
		return 2
	}
	return 6
}

// Validate reports the first nonsensical setting.
func (c Config) Validate() error {
	var errs []error
	check := func(ok bool, format string, args ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf(format, args...))
		}
	}
	check(c.MinEffect >= 0 && c.MinEffect < 0.5, "min effect %v: want a fraction in [0, 0.5)", c.MinEffect)
	check(c.Alpha > 0 && c.Alpha < 0.5, "alpha %v: want (0, 0.5)", c.Alpha)
	check(c.ClassifyError > 0 && c.ClassifyError < 0.25, "classify error %v: want (0, 0.25)", c.ClassifyError)
	check(c.EndpointRuns >= c.minComparedRuns(), "endpoint runs %d: want at least %d (fewer cannot reach p below 0.01)", c.EndpointRuns, c.minComparedRuns())
	check(c.EndpointLooks >= 1 && c.EndpointLooks <= 10, "endpoint looks %d: want 1 to 10", c.EndpointLooks)
	check(c.MinRuns >= 1, "min runs %d: want at least 1", c.MinRuns)
	check(c.MaxRuns >= c.MinRuns, "max runs %d: want at least min runs (%d)", c.MaxRuns, c.MinRuns)
	check(c.VerifyRuns >= c.minComparedRuns(), "verify runs %d: want at least %d", c.VerifyRuns, c.minComparedRuns())
	check(c.MaxCulprits >= 1, "max culprits %d: want at least 1", c.MaxCulprits)
	if err := c.Metric.validate(); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return fmt.Errorf("bisect config: %w", errors.Join(errs...))
	}
	return nil
}
