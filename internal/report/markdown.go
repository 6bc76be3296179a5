package report

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/template"
	"unicode/utf8"
)

//go:embed report.md.tmpl
var markdownTemplate string

var mdTemplate = template.Must(template.New("report.md").Funcs(template.FuncMap{
	"inc":      func(i int) int { return i + 1 },
	"tps":      tps,
	"tps0":     tpsInt,
	"indent":   indent,
	"esc":      mdEscape,
	"link":     CodeLink,
	"trunc":    func(s string) string { return mdEscape(Truncate(s, 48)) },
	"diffstat": diffstat,
	"share":    func(f float64) string { return strconv.FormatFloat(100*f, 'f', 0, 64) + " %" },
	"upper":    upperFirst,
	"code":     func(s string) string { return strings.NewReplacer("`", "'", "|", `\|`, "\n", " ").Replace(s) },
}).Parse(markdownTemplate))

// Markdown writes the report as GitHub-flavoured Markdown. The output
// depends only on in and opts (no clock, no map order).
func Markdown(w io.Writer, in Input, opts Options) error {
	rep, err := Build(in, opts)
	if err != nil {
		return err
	}
	return rep.WriteMarkdown(w)
}

// WriteMarkdown renders a built report.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var buf bytes.Buffer
	if err := mdTemplate.Execute(&buf, r); err != nil {
		return fmt.Errorf("rendering report: %w", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// JSON writes the report's content as indented JSON (the Report type).
func JSON(w io.Writer, in Input, opts Options) error {
	rep, err := Build(in, opts)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(rep)
}

// HasMid reports whether any observation has the MID verdict.
func (r *Report) HasMid() bool {
	for _, o := range r.Observations {
		if o.Verdict == VerdictMid {
			return true
		}
	}
	return false
}

// indent indents every line of s by two spaces (a block inside a list item).
func indent(s string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = "  " + l
		}
	}
	return strings.Join(lines, "")
}

// CodeLink renders text as Markdown code linked to url, or just as code
// without one.
func CodeLink(text, url string) string {
	if url == "" {
		return "`" + text + "`"
	}
	return "[`" + text + "`](" + url + ")"
}

// Truncate shortens s to n runes, the last an ellipsis.
func Truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// diffstat renders files like `git diff --stat`, bars at most 40 wide.
func diffstat(files []FileChange) string {
	width, most := 0, 0
	for _, f := range files {
		width = max(width, utf8.RuneCountInString(f.Path))
		most = max(most, f.Added+f.Deleted)
	}
	digits := len(strconv.Itoa(most))
	scale := func(n int) int {
		if most <= 40 {
			return n
		}
		s := n * 40 / most
		if n > 0 && s == 0 {
			s = 1
		}
		return s
	}
	var b strings.Builder
	added, deleted := 0, 0
	for _, f := range files {
		added, deleted = added+f.Added, deleted+f.Deleted
		if f.Binary {
			fmt.Fprintf(&b, " %-*s | Bin\n", width, f.Path)
			continue
		}
		fmt.Fprintf(&b, " %-*s | %*d %s%s\n", width, f.Path, digits, f.Added+f.Deleted,
			strings.Repeat("+", scale(f.Added)), strings.Repeat("-", scale(f.Deleted)))
	}
	summary := " " + plural(len(files), "file") + " changed"
	if added > 0 {
		summary += ", " + plural(added, "insertion") + "(+)"
	}
	if deleted > 0 {
		summary += ", " + plural(deleted, "deletion") + "(-)"
	}
	b.WriteString(summary + "\n")
	return b.String()
}
