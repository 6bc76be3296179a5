package bisect

// The metrics of the drop-table-stall workload (pointselect.DropStall and
// `perfbisect model drop-table` report them under the same names).
var (
	// MetricLongestStall is the longest stall of a drop-table-stall run in
	// seconds: the longest stretch of 100 ms buckets below 10 % of the
	// steady rate, plus one bucket, so a run without a stall scores 0.1 s.
	// Its values sit on the bucket grid, so runs without a stall are all
	// equal: the floor (5 %, half a bucket at a 1 s stall) keeps their
	// spread from being zero.
	MetricLongestStall = Metric{Name: "longest_stall", Unit: "s stalled", Direction: LowerIsBetter, NoiseFloor: 0.05}
	// MetricDropDuration is the DROP TABLE statement's wall time in
	// seconds, in the same runs.
	MetricDropDuration = Metric{Name: "drop_duration", Unit: "s DROP TABLE", Direction: LowerIsBetter, NoiseFloor: 0.01}
)
