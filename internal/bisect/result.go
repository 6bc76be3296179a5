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
	// Regression is true when bad is slower than good.
	Regression bool `json:"regression"`
	// Endpoints compares good (old) with bad (new).
	Endpoints Change `json:"endpoints"`
	// Noise is the run-to-run noise estimate.
	Noise Noise `json:"noise"`
	// Drift is the host's estimated drift over the bisect.
	Drift Drift `json:"drift"`
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
	// TotalRuns counts the samples the bisect used (replayed ones
	// included); Builds counts the distinct commits it measured or tried
	// to build.
	TotalRuns int `json:"total_runs"`
	Builds    int `json:"builds"`
}

// A Change compares an old commit's samples with a new commit's.
type Change struct {
	OldMean float64 `json:"old_mean"`
	NewMean float64 `json:"new_mean"`
	OldRuns int     `json:"old_runs"`
	NewRuns int     `json:"new_runs"`
	// Delta is NewMean/OldMean - 1: negative is slower.
	Delta float64 `json:"delta"`
	// CILow and CIHigh bound Delta with 95 % confidence (bootstrap of the
	// ratio of means).
	CILow  float64 `json:"ci_low"`
	CIHigh float64 `json:"ci_high"`
	// P is the two-sided Mann-Whitney U p-value.
	P float64 `json:"p"`
	// Differs is the decision: P below the test's alpha AND |Delta| at
	// least MinEffect.
	Differs bool `json:"differs"`
}

// Noise describes run-to-run variation.
type Noise struct {
	SD   float64 `json:"sd"`   // pooled within-commit standard deviation, in TPS
	CV   float64 `json:"cv"`   // SD relative to the good mean
	Runs int     `json:"runs"` // samples the estimate rests on
}

// Drift is a linear trend of throughput in run order, pooled within
// commits.
type Drift struct {
	// PerHundredRuns is the relative change of throughput per 100 runs,
	// and SE its standard error.
	PerHundredRuns float64 `json:"per_hundred_runs"`
	SE             float64 `json:"se"`
	// Corrected says midpoint verdicts were corrected for the drift (it was
	// clear: more than 3 standard errors).
	Corrected bool `json:"corrected"`
}

// Power is the sampling plan for midpoints at the measured step.
type Power struct {
	// StepSDs is the endpoint step in units of Noise.SD.
	StepSDs float64 `json:"step_sds"`
	// RunsNeeded is the number of runs a midpoint needs to be classified
	// with error ClassifyError by a fixed-size rule; the sequential test
	// needs fewer on average and is capped at MaxRuns.
	RunsNeeded int `json:"runs_needed"`
	// MinDetectable is the smallest relative step MaxRuns runs can classify
	// at that error.
	MinDetectable float64 `json:"min_detectable"`
	// Enough is RunsNeeded <= MaxRuns.
	Enough bool `json:"enough"`
}

// A Culprit is a commit that changed throughput, with its verified effect.
type Culprit struct {
	Commit Commit `json:"commit"`
	Parent Commit `json:"parent"`
	// Branch is BranchBad or BranchGood.
	Branch string `json:"branch"`
	// Regression is true when Commit is slower than Parent.
	Regression bool `json:"regression"`
	// Effect is the verification: fresh interleaved runs of Parent (old)
	// and Commit (new).
	Effect Change `json:"effect"`
	// Verified is Effect.Differs with the direction the bisect expected.
	Verified bool `json:"verified"`
	// ShareOfRange is Effect.Delta over the relative difference of the range
	// it was found in (1 when it explains all of it).
	ShareOfRange float64 `json:"share_of_range"`
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
	Commit  Commit    `json:"commit"`
	Samples []float64 `json:"samples"`
	Mean    float64   `json:"mean"`
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
