package report

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// jiraCases have testdata/<case>.jira golden files.
var jiraCases = []string{"seed", "instructions", "gradual", "two-culprits", "not-reproduced"}

func TestGoldenJira(t *testing.T) {
	for _, name := range jiraCases {
		t.Run(name, func(t *testing.T) {
			var got bytes.Buffer
			if err := Jira(&got, loadCase(t, name), Options{SVGPath: "chart.svg"}); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, filepath.Join("testdata", name+".jira"), got.Bytes())
		})
	}
}

// Every character Jira reads as markup arrives escaped, links become
// [text|url], and a block's text cannot end the block early.
func TestJiraEscaping(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a_b*c+d-e^f~g?h|i{j}k[l]m!n#o", `a\_b\*c\+d\-e\^f\~g\?h\|i\{j\}k\[l\]m\!n\#o`},
		{"back\\slash", `back\\slash`},
		{"[`83a48d2bc84`](https://github.com/o/n/commit/83a4) “ref\\_count” &lt;x&gt;", `[83a48d2bc84|https://github.com/o/n/commit/83a4] “ref\_count” <x>`},
		{"`dict_index_t` and `a|b`", `{{dict\_index\_t}} and {{a\|b}}`},
		{"-0.65 %", `\-0.65 %`},
	} {
		if got := jiraInline(tc.in); got != tc.want {
			t.Errorf("jiraInline(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	in := loadCase(t, "seed")
	in.Result.Culprits[0].Commit.Subject = "MDEV-1 fix {code} and {noformat} in *bold* _it_ [x]"
	for i := range in.Details {
		if in.Details[i].Hash == in.Result.Culprits[0].Commit.Hash {
			in.Details[i].Message = "body with {noformat} inside\nand {code:java} too"
			in.Details[i].Diff = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-{noformat}\n+{code}\n"
		}
	}
	var out bytes.Buffer
	if err := Jira(&out, in, Options{}); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if !strings.Contains(s, `MDEV\-1 fix \{code\} and \{noformat\} in \*bold\* \_it\_ \[x\]`) {
		t.Error("the culprit's subject is not escaped in its heading")
	}
	// Block delimiters: each opened block is closed, and no block text
	// holds a delimiter of its own.
	opens := strings.Count(s, "{noformat}\n") + strings.Count(s, "{code:diff}\n") + strings.Count(s, "{code:bash}\n")
	if strings.Count(s, "{noformat}")%2 != 0 || strings.Count(s, "{code}")*2 != strings.Count(s, "{code:diff}")*2+strings.Count(s, "{code:bash}")*2 || opens == 0 {
		t.Errorf("unbalanced blocks:\n%s", s)
	}
	if !strings.Contains(s, "{ noformat} inside") || !strings.Contains(s, "+{ code}") {
		t.Error("block text containing a delimiter was not neutralised")
	}
	if strings.Contains(s, "```") || strings.Contains(s, "](http") {
		t.Error("Markdown left in the Jira text")
	}
}
