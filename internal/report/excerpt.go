package report

import (
	"fmt"
	"strings"
)

// DiffExcerpt returns the hunks of the files that matter in a unified
// diff (git's format): source files first, test results, tests and
// documentation left out while anything else remains; at most maxLines
// lines. Omitted counts the diff lines left out, so a report can say so.
func DiffExcerpt(patch string, maxLines int) (excerpt string, omitted int) {
	files := splitFiles(patch)
	var keep, rest []string
	for _, f := range files {
		if minorFile(f) {
			rest = append(rest, f)
		} else {
			keep = append(keep, f)
		}
	}
	if len(keep) == 0 {
		keep, rest = rest, nil
	}
	var b strings.Builder
	n := 0
	for _, f := range keep {
		for _, line := range strings.SplitAfter(f, "\n") {
			if line == "" {
				continue
			}
			if n >= maxLines {
				omitted++
				continue
			}
			b.WriteString(line)
			n++
		}
	}
	for _, f := range rest {
		omitted += strings.Count(f, "\n")
	}
	return b.String(), omitted
}

// splitFiles splits a unified diff at its "diff --git" lines.
func splitFiles(patch string) []string {
	var out []string
	start := -1
	lines := strings.SplitAfter(patch, "\n")
	var cur strings.Builder
	for _, l := range lines {
		if strings.HasPrefix(l, "diff --git ") {
			if start >= 0 {
				out = append(out, cur.String())
				cur.Reset()
			}
			start = 0
		}
		if start >= 0 {
			cur.WriteString(l)
		}
	}
	if start >= 0 && cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

// minorFile says whether a file's diff is about tests or documentation.
func minorFile(f string) bool {
	head, _, _ := strings.Cut(f, "\n")
	for _, s := range []string{"mysql-test/", ".result ", ".test ", ".md ", "/docs/", " b/Docs/"} {
		if strings.Contains(head+" ", s) {
			return true
		}
	}
	return false
}

// omittedNote says how much of a diff the excerpt leaves out.
func omittedNote(omitted int) string {
	if omitted == 0 {
		return ""
	}
	return fmt.Sprintf("%s of the diff not shown (tests, results, documentation, or past the excerpt's length).", plural(omitted, "line"))
}
