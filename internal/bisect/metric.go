package bisect

import (
	"fmt"
	"math"
)

// A Direction says which way a metric improves.
type Direction string

// The directions of a Metric.
const (
	HigherIsBetter Direction = "higher-is-better" // throughput
	LowerIsBetter  Direction = "lower-is-better"  // instructions, latency
)

// A Metric describes what one sample measures. The engine is the same for
// every metric; the direction decides what a regression is, and the noise
// floor keeps near-deterministic samples (instruction counts) from being
// divided by a zero or tiny spread.
type Metric struct {
	// Name identifies the metric: "tps", "instructions".
	Name string `json:"name"`
	// Unit is printed after values: "TPS", "instructions/query".
	Unit string `json:"unit"`
	// Direction is HigherIsBetter or LowerIsBetter.
	Direction Direction `json:"direction"`
	// NoiseFloor is the smallest run-to-run noise the engine assumes, as a
	// fraction of the level (0.001 = 0.1 %): estimates below it are raised
	// to it. Config.MinEffect still applies on top. 0 means none (a
	// relative 1e-9 guards against a zero spread).
	NoiseFloor float64 `json:"noise_floor"`
}

// The built-in metrics.
var (
	// MetricTPS is throughput, transactions per second: today's default.
	MetricTPS = Metric{Name: "tps", Unit: "TPS", Direction: HigherIsBetter}
	// MetricInstructions is instructions executed by the server per query,
	// nearly deterministic: its floor is 0.1 %.
	MetricInstructions = Metric{Name: "instructions", Unit: "instructions/query", Direction: LowerIsBetter, NoiseFloor: 0.001}
)

// orDefault returns m, or MetricTPS for the zero Metric (a Config stored
// before metrics existed).
func (m Metric) orDefault() Metric {
	if m == (Metric{}) {
		return MetricTPS
	}
	return m
}

// Worse reports whether a relative change delta (new/old - 1) is a
// regression for this metric.
func (m Metric) Worse(delta float64) bool {
	if m.orDefault().Direction == LowerIsBetter {
		return delta > 0
	}
	return delta < 0
}

// Words returns how a change is said: "slower"/"faster" for throughput,
// "worse"/"better" (with the metric's name) otherwise.
func (m Metric) Words(delta float64) string {
	m = m.orDefault()
	worse := m.Worse(delta)
	switch {
	case m.Name == "tps" && worse:
		return "slower"
	case m.Name == "tps":
		return "faster"
	case worse:
		return "worse (" + m.Name + " " + updown(delta) + ")"
	}
	return "better (" + m.Name + " " + updown(delta) + ")"
}

func updown(delta float64) string {
	if delta > 0 {
		return "up"
	}
	return "down"
}

// floor returns the smallest scale the engine uses at level.
func (m Metric) floor(level float64) float64 {
	return math.Abs(level) * max(m.orDefault().NoiseFloor, 1e-9)
}

func (m Metric) validate() error {
	if m == (Metric{}) {
		return nil
	}
	if m.Name == "" {
		return fmt.Errorf("metric: empty name")
	}
	if m.Direction != HigherIsBetter && m.Direction != LowerIsBetter {
		return fmt.Errorf("metric %s: direction %q: want %q or %q", m.Name, m.Direction, HigherIsBetter, LowerIsBetter)
	}
	if m.NoiseFloor < 0 || m.NoiseFloor >= 0.1 {
		return fmt.Errorf("metric %s: noise floor %v: want a fraction in [0, 0.1)", m.Name, m.NoiseFloor)
	}
	return nil
}
