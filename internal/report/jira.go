package report

import (
	"bufio"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// Jira writes the report in Jira's wiki markup (MariaDB's tracker): the
// same content as Markdown, with headings h1./h2., tables ||head|| and
// |cell|, {noformat} and {code} blocks, and every character Jira would
// read as markup escaped.
func Jira(w io.Writer, in Input, opts Options) error {
	rep, err := Build(in, opts)
	if err != nil {
		return err
	}
	return rep.WriteJira(w)
}

// WriteJira renders a built report as Jira wiki markup.
func (r *Report) WriteJira(w io.Writer) error {
	j := &jiraWriter{w: bufio.NewWriter(w)}
	j.line("h1. " + jiraEsc(r.Title))
	if r.Model != nil {
		j.para("{panel:title=Model-based report}Every figure below comes from perfbisect's in-process model, not from a MariaDB build; see \"Model and calibration\" at the end.{panel}")
	}
	j.para(jiraInline(r.Summary[0]) + "\n" + jiraInline(r.Summary[1]))
	j.para("*Affected versions:* " + jiraInline(r.Affected))
	if len(r.Releases) > 0 {
		j.line("*Affected releases:*")
		j.list(r.Releases)
	}
	j.heading(2, "Benchmark configuration")
	var cfg strings.Builder
	for _, f := range r.Config {
		cfg.WriteString(padRight(f.Name+":", 15) + " " + f.Value + "\n")
	}
	j.block("noformat", cfg.String())
	j.heading(2, "Observed behaviour")
	j.list(r.Observed)
	j.heading(2, "Expected behaviour")
	j.para(jiraInline(r.Expected))
	j.heading(2, "Technical analysis")
	for i, c := range r.Culprits {
		j.culprit(i, c, r.Noun)
	}
	j.section(3, "Gradual change", r.Gradual)
	j.section(3, "Unresolved ranges", r.Unresolved)
	j.section(3, "Rejected candidates", r.Rejected)
	j.section(3, "Branch context", r.Branch)
	if len(r.Confirmations) > 0 {
		j.heading(3, "Throughput check")
		for _, c := range r.Confirmations {
			j.line("* " + jiraEsc(c.New+" against "+c.Old+": "+c.Line+". "+upperFirst(c.Note)+"."))
		}
		j.line("")
	}
	if r.BuildLimit != "" {
		j.heading(3, "Limited by build-to-build variance")
		j.para(jiraInline(r.BuildLimit))
	}
	j.section(3, "Identical binaries", r.Identical)
	j.observations(r)
	if r.NetEffect != "" {
		j.heading(2, "Net effect")
		j.para("{{" + jiraEsc(r.NetEffect) + "}} (" + jiraEsc(r.Unit) + ", highest first)")
		j.list(r.NetNotes)
	}
	j.commands("Reproduce", r.Reproduce)
	j.commands("Next step", r.NextSteps)
	j.section(2, "Method", r.Method)
	j.section(3, "Outliers", r.Outliers)
	j.section(2, "Warnings", r.Warnings)
	if r.Model != nil && len(r.Model.Calibration) > 0 {
		j.heading(2, "Model and calibration")
		if r.Model.Description != "" {
			j.para(jiraEsc(r.Model.Description))
		}
		j.line("||Figure||Value||Kind||Source||")
		for _, c := range r.Model.Calibration {
			j.row("{{"+jiraEsc(c.Name)+"}}", jiraEsc(c.Value), jiraEsc(c.Kind), jiraEsc(c.Source))
		}
	}
	return j.w.Flush()
}

// jiraWriter writes Jira wiki markup line by line.
type jiraWriter struct{ w *bufio.Writer }

func (j *jiraWriter) line(s string) { j.w.WriteString(s + "\n") }

func (j *jiraWriter) para(s string) { j.line(s); j.line("") }

func (j *jiraWriter) heading(level int, s string) {
	j.line("h" + string(rune('0'+level)) + ". " + jiraEsc(s))
}

// list writes Markdown-inline items as a bulleted list.
func (j *jiraWriter) list(items []string) {
	for _, s := range items {
		j.line("* " + jiraInline(s))
	}
	if len(items) > 0 {
		j.line("")
	}
}

func (j *jiraWriter) section(level int, title string, items []string) {
	if len(items) == 0 {
		return
	}
	j.heading(level, title)
	j.list(items)
}

// row writes one table row of already escaped cells (empty cells hold a
// space: Jira drops empty ones).
func (j *jiraWriter) row(cells ...string) {
	for i, c := range cells {
		if c == "" {
			cells[i] = " "
		}
	}
	j.line("|" + strings.Join(cells, "|") + "|")
}

// block writes text verbatim in a {noformat} or {code:lang} block.
func (j *jiraWriter) block(kind, text string) {
	end := kind
	if i := strings.IndexByte(kind, ':'); i >= 0 {
		end = kind[:i]
	}
	j.line("{" + kind + "}")
	j.w.WriteString(strings.TrimRight(neutralizeBlocks(text), "\n") + "\n")
	j.line("{" + end + "}")
	j.line("")
}

func (j *jiraWriter) culprit(i int, c CulpritView, noun string) {
	head := "Culprit "
	if c.Gradual {
		head = "Step of a gradual change "
	}
	link := "{{" + jiraEsc(c.Short) + "}}"
	if c.URL != "" {
		link = "[" + jiraEsc(c.Short) + "|" + c.URL + "]"
	}
	j.line("h3. " + head + jiraEsc(itoa(i+1)) + ": " + link + " " + jiraEsc(c.Subject))
	j.line("* Change in " + jiraEsc(noun) + ": " + jiraEsc(c.EffectLine) + ".")
	parent := "{{" + jiraEsc(c.Parent) + "}}"
	if c.ParentURL != "" {
		parent = "[" + jiraEsc(c.Parent) + "|" + c.ParentURL + "]"
	}
	share := "; it explains " + strconv.FormatFloat(100*c.Share, 'f', 0, 64) + " % of its range's difference"
	if c.Gradual {
		share += ": it is one step of a gradual change, not the culprit of all of it"
	}
	j.line("* Kind: " + jiraEsc(c.Kind+" on "+c.SideName) + ", against its parent " + parent + jiraEsc(share) + ".")
	if c.Author != "" {
		j.line("* Author: " + jiraEsc(c.Author+" <"+c.Email+">, "+c.Date))
	}
	if c.Presence != "" {
		j.line("* On the other branch: " + jiraInline(c.Presence) + ".")
	}
	if c.Confirmation != nil {
		j.line("* Throughput check: " + jiraEsc(c.Confirmation.Line+". "+upperFirst(c.Confirmation.Note)+"."))
	}
	j.line("")
	if len(c.Files) > 0 {
		j.block("noformat", diffstat(c.Files))
	}
	if c.Message != "" {
		j.line("Commit message:")
		j.block("noformat", c.Message)
	}
	if c.Diff != "" {
		j.line("Diff excerpt" + jiraEsc(parenthesised(c.DiffNote)) + ":")
		j.block("code:diff", c.Diff)
	}
	if p := c.Profile; p != nil {
		j.heading(4, "Where the instructions went")
		j.para(jiraEsc("Instructions (" + p.Event + ") per query: " + p.Before + " before, " + p.After + " after, " + p.Delta + "."))
		for _, t := range []struct {
			kind string
			rows []FuncRow
		}{{"self", p.Self}, {"inclusive", p.Inclusive}} {
			if len(t.rows) == 0 {
				continue
			}
			j.line("||Function (" + t.kind + ")||File||Before||After||Change||Share||")
			for _, f := range t.rows {
				j.row("{{"+jiraEsc(f.Name)+"}}", jiraEsc(f.File), jiraEsc(f.Before), jiraEsc(f.After), jiraEsc(f.Delta), jiraEsc(f.Share))
			}
			j.line("")
		}
	}
}

func (j *jiraWriter) observations(r *Report) {
	j.heading(2, "Commit-level observations")
	j.line("||#||Commit||Subject||Verdict||Median " + jiraEsc(r.Unit) + "||Runs||95 % CI of median||Note||")
	for i, o := range r.Observations {
		commit := "{{" + jiraEsc(o.Short) + "}}"
		if o.URL != "" {
			commit = "[" + jiraEsc(o.Short) + "|" + o.URL + "]"
		}
		median, ci := "–", "–"
		if o.Runs > 0 {
			median = tps(o.Median)
		}
		if o.HasCI {
			ci = tpsInt(o.Lo) + " – " + tpsInt(o.Hi)
		}
		j.row(itoa(i+1), commit, jiraEsc(Truncate(o.Subject, 48)), o.Verdict, jiraEsc(median), itoa(o.Runs), jiraEsc(ci), jiraEsc(o.Note))
	}
	j.line("")
	if r.SVGPath != "" {
		j.para("!" + r.SVGPath + "!")
	}
}

func (j *jiraWriter) commands(title string, cs []Command) {
	if len(cs) == 0 {
		return
	}
	j.heading(2, title)
	for _, c := range cs {
		j.para(jiraEsc(c.Purpose))
		j.block("code:bash", c.Line)
	}
}

// jiraSpecial are the characters Jira's wiki markup gives a meaning.
var jiraSpecial = regexp.MustCompile(`[\\{}\[\]|*_\-+^~?!#]`)

// jiraEsc escapes every character Jira would read as markup.
func jiraEsc(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	return jiraSpecial.ReplaceAllString(s, `\$0`)
}

// neutralizeBlocks keeps a block's text from ending the block early.
func neutralizeBlocks(s string) string {
	return strings.NewReplacer("{noformat}", "{ noformat}", "{code", "{ code").Replace(s)
}

// mdInline matches what the report's sentences use of Markdown: a code
// link, a code span, an escaped character and the two HTML entities.
var mdInline = regexp.MustCompile("\\[`([^`]*)`\\]\\(([^)\\s]*)\\)|`([^`]*)`|\\\\([\\\\|*_\\[\\]])|&lt;|&gt;")

// jiraInline converts a sentence written in the report's Markdown subset
// to Jira markup: [`x`](url) to [x|url], `x` to {{x}}, and the rest
// unescaped from Markdown and escaped for Jira.
func jiraInline(s string) string {
	var b strings.Builder
	at := 0
	for _, m := range mdInline.FindAllStringSubmatchIndex(s, -1) {
		b.WriteString(jiraEsc(s[at:m[0]]))
		at = m[1]
		switch {
		case m[2] >= 0:
			b.WriteString("[" + jiraEsc(s[m[2]:m[3]]) + "|" + s[m[4]:m[5]] + "]")
		case m[6] >= 0:
			b.WriteString("{{" + jiraEsc(s[m[6]:m[7]]) + "}}")
		case m[8] >= 0:
			b.WriteString(jiraEsc(s[m[8]:m[9]]))
		case s[m[0]:m[1]] == "&lt;":
			b.WriteString("<")
		default:
			b.WriteString(">")
		}
	}
	b.WriteString(jiraEsc(s[at:]))
	return b.String()
}

func padRight(s string, n int) string {
	for len([]rune(s)) < n {
		s += " "
	}
	return s
}

func parenthesised(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

func itoa(i int) string { return strconv.Itoa(i) }
