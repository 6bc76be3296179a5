package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/perfbisect/perfbisect/internal/bisect"
)

// A Command is a perfbisect command line the reader can run, and what it
// does.
type Command struct {
	Purpose string `json:"purpose"`
	Line    string `json:"command"`
}

// workloadFlags are the flags that give compare the bisect's workload:
// where (the repository placeholder DIR, or the dry run's scenario) and
// what (the metric and, for a real bisect, the point-select settings),
// each flag with its value.
func (t *texts) workloadFlags() (where, what []string) {
	if t.in.Request.DryRun {
		where = append(where, "--dry-run")
		if t.in.Request.Scenario != "" {
			where = append(where, "--scenario "+shellQuote(t.in.Request.Scenario))
		}
	} else {
		where = append(where, "--repo DIR")
	}
	if !t.mt.isTPS() {
		what = append(what, "--metric "+t.mt.m.Name)
	}
	if t.in.Request.DryRun {
		return where, what
	}
	b := t.in.Benchmark
	add := func(flag, value string, ok bool) {
		if ok {
			what = append(what, flag+" "+shellQuote(value))
		}
	}
	add("--tables", strconv.Itoa(b.Tables), b.Tables > 0)
	add("--table-size", strconv.FormatInt(b.TableSize, 10), b.TableSize > 0)
	add("--threads", strconv.Itoa(b.Threads), b.Threads > 0)
	add("--time", strconv.FormatFloat(b.DurationSeconds, 'f', -1, 64)+"s", b.DurationSeconds > 0)
	add("--warmup", strconv.FormatFloat(b.WarmupSeconds, 'f', -1, 64)+"s", b.WarmupSeconds > 0)
	add("--rand-type", b.RandType, b.RandType != "")
	for _, o := range slicesSorted(b.ServerOptions) {
		add("--server-option", o, true)
	}
	return where, what
}

// compareLine is `perfbisect compare WHERE A B [EXTRA] WHAT`, the
// workload flags on continuation lines.
func (t *texts) compareLine(a, b string, extra ...string) string {
	where, what := t.workloadFlags()
	first := append(append([]string{"perfbisect", "compare"}, where...), shellQuote(a), shellQuote(b))
	lines := []string{strings.Join(append(first, extra...), " ")}
	var group []string // up to three short flags a line; a server option on its own
	flush := func() {
		if len(group) > 0 {
			lines = append(lines, "  "+strings.Join(group, " "))
			group = nil
		}
	}
	for _, f := range what {
		if strings.HasPrefix(f, "--server-option ") {
			flush()
			lines = append(lines, "  "+f)
			continue
		}
		if group = append(group, f); len(group) == 3 {
			flush()
		}
	}
	flush()
	return strings.Join(lines, " \\\n")
}

// reproduce are the commands that re-measure each culprit against its
// parent, or good against bad when no culprit was found.
func (t *texts) reproduce() []Command {
	var out []Command
	for _, c := range t.r.Culprits {
		out = append(out, Command{
			Purpose: fmt.Sprintf("Re-measure %s against its parent %s (interleaved runs, stored runs reused; --fresh measures anew):", shortOf(c.Commit), shortOf(c.Parent)),
			Line:    t.compareLine(shortOf(c.Parent), shortOf(c.Commit)),
		})
	}
	if len(out) == 0 {
		out = append(out, Command{
			Purpose: fmt.Sprintf("Re-measure %s against %s:", t.bad(), t.good()),
			Line:    t.compareLine(t.good(), t.bad()),
		})
	}
	return out
}

// nextSteps offer a patch trial for each culprit found on the good side
// and missing from the bad one: build bad with the culprit cherry-picked
// and measure it against bad as it is.
func (t *texts) nextSteps() []Command {
	var out []Command
	for _, c := range t.r.Culprits {
		if c.Branch != SideGood || !t.missingOnBad(c) {
			continue
		}
		out = append(out, Command{
			Purpose: fmt.Sprintf("%s lacks %s. Forward-port it as a trial: build %s with %s cherry-picked (in perfbisect's copy of the tree, never in your clone) and measure it against %s as it is. A verdict of %s means the port brings %s's %s to %s:",
				t.sideName(SideBad), shortOf(c.Commit), t.bad(), shortOf(c.Commit), t.bad(), verdictWord(c.Regression), shortOf(c.Commit), t.mt.kind(c.Regression), t.sideName(SideBad)),
			Line: t.compareLine(t.bad(), t.bad(), "--patch", shortOf(c.Commit)),
		})
	}
	return out
}

// verdictWord is the verdict of compare that a successful port of a
// culprit gives: "better" for an improvement.
func verdictWord(regression bool) string {
	if regression {
		return "\"worse\""
	}
	return "\"better\""
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.,/=:@+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// isCulprit reports whether hash is a culprit of r.
func isCulprit(r bisect.Result, hash string) bool {
	for _, c := range r.Culprits {
		if c.Commit.Hash == hash {
			return true
		}
	}
	return false
}

// releaseTags are the release tags that have and lack a culprit.
func (t *texts) releaseTags(hash string) (with, without []string) {
	for _, r := range t.in.Releases {
		switch {
		case r.Culprit != hash:
		case r.Has:
			with = append(with, r.Tag)
		default:
			without = append(without, r.Tag)
		}
	}
	return with, without
}

// releases is the affected-releases line of each culprit with tags.
func (t *texts) releases(cv []CulpritView) []string {
	var out []string
	for _, c := range cv {
		if len(c.With) == 0 && len(c.Without) == 0 {
			continue
		}
		s := "`" + c.Short + "` (" + c.Kind + ")"
		if len(c.With) > 0 {
			s += ": in " + strings.Join(c.With, ", ")
		}
		if len(c.Without) > 0 && len(c.With) > 0 {
			s += "; not in " + strings.Join(c.Without, ", ")
		} else if len(c.Without) > 0 {
			s += ": not in " + strings.Join(c.Without, ", ")
		}
		out = append(out, s+".")
	}
	return out
}
