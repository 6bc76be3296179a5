package bisect

// A Status is the outcome of a bisect.
type Status string

// The statuses of a Result.
const (
	// StatusFound: at least one culprit was found and verified.
	StatusFound Status = "found"
	// StatusNotReproduced: good and bad do not differ (by the test and by
	// MinEffect), so there is nothing to bisect.
	StatusNotReproduced Status = "not-reproduced"
	// StatusUnderpowered: the step is smaller than MaxRuns runs per commit
	// can classify, and Force was not set. Power says what would be needed.
	StatusUnderpowered Status = "underpowered"
	// StatusInconclusive: the difference reproduced but no culprit was
	// verified: skipped commits left a range of candidates, or the commits
	// found did not verify (Result.Rejected).
	StatusInconclusive Status = "inconclusive"
)

// A Verdict is what the engine concluded about one measured commit.
type Verdict string

// The verdicts of a measured commit.
const (
	VerdictGood         Verdict = "good"         // an endpoint (or side endpoint) on the good level
	VerdictBad          Verdict = "bad"          // an endpoint on the bad level
	VerdictMergeBase    Verdict = "merge-base"   // the merge base of a non-ancestor good
	VerdictLikeLow      Verdict = "like-low"     // a midpoint like its range's older end
	VerdictLikeHigh     Verdict = "like-high"    // a midpoint like its range's newer end
	VerdictIntermediate Verdict = "intermediate" // differs from both ends of its range: the range was split
	VerdictAmbiguous    Verdict = "ambiguous"    // undecided at MaxRuns: skipped
	VerdictUnbuildable  Verdict = "unbuildable"  // skipped
	VerdictCrashed      Verdict = "crashed"      // skipped
)

// Branch names the side of a non-ancestor bisect a culprit lies on.
const (
	BranchBad  = "bad"  // between the merge base (or good) and bad
	BranchGood = "good" // between the merge base and good (non-ancestor good only)
)

// A Result is everything a bisect found and measured. It is plain data,
// JSON-serialisable, for the report package.
type Result struct {
	Status Status `json:"status"`
	Config Config `json:"config"`
	Good   Commit `json:"good"`
	Bad    Commit `json:"bad"`
	// MergeBase is set when good is not an ancestor of bad.
	MergeBase *Commit `json:"merge_base,omitempty"`
	// MergeBaseLike is "good", "bad", "both" (within noise of both) or
	// "neither", when MergeBase is set.
	MergeBaseLike string `json:"merge_base_like,omitempty"`
	// Regression is true when bad is worse than good by the metric's
	// direction (Config.Metric): slower for TPS, more instructions.
	Regression bool `json:"regression"`
	// Endpoints compares good (old) with bad (new).
	Endpoints Change `json:"endpoints"`
	// Noise is the run-to-run noise estimate.
	Noise Noise `json:"noise"`
	// Drift is the host's estimated drift over the bisect: a diagnostic
	// only (interleaved runs make verdicts immune to it).
	Drift Drift `json:"drift"`
	// BuildVariance is the spread between builds of commits on one
	// performance level, and whether it limited the answer.
	BuildVariance BuildVariance `json:"build_variance"`
	// Outliers are samples far from their commit's median: excluded from
	// every test and replaced by a fresh run, listed here.
	Outliers []Outlier `json:"outliers,omitempty"`
	// HostFactors are the benchmark hosts' speeds when the samples came
	// from several (a fleet): a sample taken on host h entered the tests
	// as value / HostFactors[h] (hosts.go). Nil for one host.
	HostFactors HostFactors `json:"host_factors,omitempty"`
	// Gradual are ranges where the change is spread over several
	// commits: no single commit is "the" culprit.
	Gradual []Gradual `json:"gradual,omitempty"`
	// Identical lists commits the engine did not measure because their
	// binary is identical to a measured commit's (Identifier).
	Identical []Identical `json:"identical,omitempty"`
	// Power is the sampling plan derived from the endpoints.
	Power Power `json:"power"`
	// Culprits are the commits found, oldest first within each side.
	Culprits []Culprit `json:"culprits,omitempty"`
	// Rejected are commits the search pointed at whose verification
	// showed no change: the search went on around them.
	Rejected []Culprit `json:"rejected,omitempty"`
	// Unresolved are ranges whose culprit could not be pinned to one commit
	// because commits in it were skipped.
	Unresolved []Unresolved `json:"unresolved,omitempty"`
	// Commits lists every commit measured, in the order first measured.
	Commits []Measured `json:"commits"`
	// Skipped lists commits skipped (ambiguous, unbuildable, crashed).
	Skipped []Skip `json:"skipped,omitempty"`
	// Warnings are non-fatal findings, one sentence each.
	Warnings []string `json:"warnings,omitempty"`
	// TotalRuns counts the samples the bisect received (replayed and
	// reused ones included); ReusedRuns those of them reused from earlier
	// (never in a test); Builds counts the distinct commits it measured or
	// tried to build.
	TotalRuns  int `json:"total_runs"`
	ReusedRuns int `json:"reused_runs,omitempty"`
	Builds     int `json:"builds"`
}

// A Change compares an old commit's samples with a new commit's.
type Change struct {
	OldMean float64 `json:"old_mean"`
	NewMean float64 `json:"new_mean"`
	// OldMedian and NewMedian are the sides' medians: Delta's basis.
	OldMedian float64 `json:"old_median"`
	NewMedian float64 `json:"new_median"`
	OldRuns   int     `json:"old_runs"`
	NewRuns   int     `json:"new_runs"`
	// Delta is NewMedian/OldMedian - 1 (negative: the value fell; whether
	// that is worse depends on Config.Metric.Direction).
	Delta float64 `json:"delta"`
	// CILow and CIHigh bound Delta with 95 % confidence (bootstrap of the
	// ratio of medians).
	CILow  float64 `json:"ci_low"`
	CIHigh float64 `json:"ci_high"`
	// P is the two-sided Mann-Whitney U p-value.
	P float64 `json:"p"`
	// Differs is the decision: P below the test's alpha AND |Delta| at
	// least MinEffect AND, once the between-build spread is known, a step
	// that stands out from it.
	Differs bool `json:"differs"`
	// BuildLimited: the runs differ, but by no more than builds of
	// commits on one level differ (BuildVariance), so Differs is false.
	BuildLimited bool `json:"build_limited,omitempty"`
}

// Noise describes run-to-run variation.
type Noise struct {
	// SD is the run-to-run standard deviation, in the metric's unit: a
	// robust pooled estimate from successive differences of each commit's
	// fresh runs (stats.PooledScale), raised to the metric's noise floor.
	SD   float64 `json:"sd"`
	CV   float64 `json:"cv"`   // SD relative to good's median
	Runs int     `json:"runs"` // differences the estimate rests on
	// Floored: the estimate was below Metric.NoiseFloor and was raised.
	Floored bool `json:"floored,omitempty"`
}

// Drift is a linear trend of throughput in run order, pooled within
// commits.
type Drift struct {
	// PerHundredRuns is the relative change of throughput per 100 runs,
	// and SE its standard error.
	PerHundredRuns float64 `json:"per_hundred_runs"`
	SE             float64 `json:"se"`
	// Corrected is always false now: verdicts rest on interleaved runs.
	// It stays for documents written by earlier versions.
	Corrected bool `json:"corrected"`
	// HostShifts counts midpoint verdicts for which the interleaved
	// reference runs showed the host off its usual speed, and the
	// midpoint's runs were compared at the host's speed of the moment.
	HostShifts int `json:"host_shifts,omitempty"`
}

// BuildVariance is the variation between builds of commits that perform
// alike (a random effect per build: code layout, alignment), estimated
// from the commits the bisect classified onto one level.
type BuildVariance struct {
	// SD is the between-build standard deviation in the metric's unit
	// (0 when not estimated or not seen), CV relative to good's median.
	SD float64 `json:"sd"`
	CV float64 `json:"cv"`
	// Builds is the number of builds the estimate rests on, DF its
	// degrees of freedom (0: not estimated).
	Builds int `json:"builds"`
	DF     int `json:"df"`
	// Limited: a decision (a culprit's verification or a range's test)
	// was refused because the step did not stand out from SD; the
	// answer is limited by build-to-build variance, not by run noise.
	Limited bool `json:"limited,omitempty"`
}

// An Outlier is a sample far from its commit's median (more than 5 run
// sds): excluded from tests and replaced by a fresh run.
type Outlier struct {
	Commit Commit `json:"commit"`
	// Index is the sample's index in Measured.Samples of its commit.
	Index int     `json:"index"`
	Value float64 `json:"value"`
	// Median is the commit's median when the outlier was found, and
	// Deviation (Value-Median) in run sds.
	Median    float64 `json:"median"`
	Deviation float64 `json:"deviation"`
}

// A Gradual is a range over which the metric changed in several smaller
// steps (or a slope): the change cannot be pinned on one commit.
type Gradual struct {
	// Low is the last commit on the older level, High the first on the
	// newer one; the change happened in (Low, High].
	Low    Commit `json:"low"`
	High   Commit `json:"high"`
	Branch string `json:"branch"`
	// Commits are the commits of (Low, High], oldest first.
	Commits []Commit `json:"commits"`
	// Delta is the change over the range (High vs Low); Intermediate are
	// the measured commits inside it that lie between the two levels.
	Delta        float64  `json:"delta"`
	Intermediate []Commit `json:"intermediate,omitempty"`
}

// Identical is a commit whose binary is identical to a measured one's.
type Identical struct {
	Commit Commit `json:"commit"`
	SameAs Commit `json:"same_as"`
}

// Power is the sampling plan for midpoints at the measured step.
type Power struct {
	// StepSDs is the endpoint step in units of Noise.SD.
	StepSDs float64 `json:"step_sds"`
	// RunsNeeded is the expected number of runs of a midpoint (each paired
	// with a reference run) the sequential test takes to classify it with
	// error ClassifyError at this step: Wald's average sample number.
	RunsNeeded int `json:"runs_needed"`
	// MinDetectable is the smallest relative step MaxRuns runs classify
	// reliably (expected runs at most 2/3 of MaxRuns).
	MinDetectable float64 `json:"min_detectable"`
	// Enough is RunsNeeded <= 2/3 of MaxRuns (the sequential test is
	// truncated at MaxRuns).
	Enough bool `json:"enough"`
}

// A Culprit is a commit that changed the metric, with its verified effect.
type Culprit struct {
	Commit Commit `json:"commit"`
	Parent Commit `json:"parent"`
	// Branch is BranchBad or BranchGood.
	Branch string `json:"branch"`
	// Regression is true when Commit is worse than Parent (by the
	// metric's direction).
	Regression bool `json:"regression"`
	// Effect is the verification: fresh interleaved runs of Parent (old)
	// and Commit (new).
	Effect Change `json:"effect"`
	// Verified is Effect.Differs with the direction the bisect expected.
	Verified bool `json:"verified"`
	// ShareOfRange is Effect.Delta over the relative difference of the range
	// it was found in (1 when it explains all of it); ShareLow and
	// ShareHigh bound it with Effect's 95 % interval.
	ShareOfRange float64 `json:"share_of_range"`
	ShareLow     float64 `json:"share_low"`
	ShareHigh    float64 `json:"share_high"`
	// Gradual: the culprit is one step of a change spread over several
	// commits (Result.Gradual holds the range): it is not "the" culprit.
	Gradual bool `json:"gradual,omitempty"`
	// For a culprit on the good branch: whether an equivalent change is on
	// the bad branch (between the merge base and bad), and which.
	CheckedBadBranch bool    `json:"checked_bad_branch,omitempty"`
	EquivalentOnBad  *Commit `json:"equivalent_on_bad,omitempty"`
}

// Unresolved is a range whose culprit is one of Candidates (skipped
// commits and the first commit known to be like the newer end).
type Unresolved struct {
	Low        Commit   `json:"low"`
	Branch     string   `json:"branch"`
	Candidates []Commit `json:"candidates"`
}

// Measured is one commit and every sample the bisect used for it.
type Measured struct {
	Commit Commit `json:"commit"`
	// Samples are all samples received, in index order; Reused and
	// Outliers are indices into it of samples no test used.
	Samples  []float64 `json:"samples"`
	Reused   []int     `json:"reused,omitempty"`
	Outliers []int     `json:"outliers,omitempty"`
	// Mean and Median are over the valid samples (fresh, not outliers).
	Mean   float64 `json:"mean"`
	Median float64 `json:"median"`
	// Verdicts are the verdicts reached about this commit, in order (a
	// commit can be an endpoint of one range and a midpoint of another).
	Verdicts []Verdict `json:"verdicts,omitempty"`
	// Error is the failure message of an unbuildable or crashed commit.
	Error string `json:"error,omitempty"`
}

// A Skip is a commit the search stepped around.
type Skip struct {
	Commit Commit  `json:"commit"`
	Reason Verdict `json:"reason"`
	Detail string  `json:"detail,omitempty"`
}
