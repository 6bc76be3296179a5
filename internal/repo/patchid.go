package repo

import (
	"bufio"
	"crypto/sha1"
	"hash"
	"strings"
)

// patchID computes the stable patch-id of a unified diff (the output of
// `git diff`), following git's builtin/patch-id.c with --stable: per file,
// SHA-1 over the diff with all whitespace removed, "index" lines and hunk
// headers (hence line numbers) skipped; the per-file hashes are summed as
// 160-bit little-endian numbers, so the order of files does not matter.
// It returns "" for an empty diff.
func patchID(diff string) string {
	p := patchIDState{h: sha1.New(), before: -1, after: -1}
	sc := bufio.NewScanner(strings.NewReader(diff))
	sc.Buffer(make([]byte, 0, 64*1024), 64*1024*1024)
	for sc.Scan() {
		if !p.line(sc.Text() + "\n") {
			break
		}
	}
	p.flush()
	if p.patchLen == 0 {
		return ""
	}
	const hexDigits = "0123456789abcdef"
	out := make([]byte, 40)
	for i, b := range p.result {
		out[2*i], out[2*i+1] = hexDigits[b>>4], hexDigits[b&15]
	}
	return string(out)
}

type patchIDState struct {
	h               hash.Hash
	result          [sha1.Size]byte
	before, after   int
	patchLen        int
	binary          bool
	preOID, postOID string
}

// flush adds the hash of the current file into the result.
func (p *patchIDState) flush() {
	sum := p.h.Sum(nil)
	p.h.Reset()
	carry := 0
	for i := range p.result {
		carry += int(p.result[i]) + int(sum[i])
		p.result[i] = byte(carry)
		carry >>= 8
	}
}

// line consumes one line (with its newline); false ends the patch.
func (p *patchIDState) line(line string) bool {
	if strings.HasPrefix(line, "\\ ") && len(line) > 12 { // "\ No newline at end of file"
		return true
	}
	if p.patchLen == 0 && !strings.HasPrefix(line, "diff ") {
		return true
	}
	if p.before == -1 {
		switch {
		case strings.HasPrefix(line, "GIT binary patch"), strings.HasPrefix(line, "Binary files"):
			p.binary = true
			p.before = 0
			p.h.Write([]byte(p.preOID))
			p.h.Write([]byte(p.postOID))
			p.flush()
			return true
		case strings.HasPrefix(line, "index "):
			p.preOID, p.postOID = parseIndexLine(line)
			return true
		case strings.HasPrefix(line, "--- "):
			p.before, p.after = 1, 1
		case !isAlpha(line[0]):
			return false
		}
	}
	if p.binary {
		if strings.HasPrefix(line, "diff ") {
			p.binary = false
			p.before = -1
		}
		return true
	}
	if p.before == 0 && p.after == 0 {
		if strings.HasPrefix(line, "@@ -") {
			p.before, p.after = scanHunkHeader(line)
			return true
		}
		if !strings.HasPrefix(line, "diff ") {
			return false
		}
		p.flush()
		p.before, p.after = -1, -1
	}
	switch line[0] {
	case '-':
		p.before--
	case '+':
		p.after--
	case ' ':
		p.before--
		p.after--
	}
	stripped := removeSpace(line)
	p.patchLen += len(stripped)
	p.h.Write([]byte(stripped))
	return true
}

// parseIndexLine returns the two object ids of "index a..b [mode]".
func parseIndexLine(line string) (string, string) {
	rest := strings.TrimSuffix(strings.TrimPrefix(line, "index "), "\n")
	pre, post, ok := strings.Cut(rest, "..")
	if !ok {
		return "", ""
	}
	if i := strings.IndexByte(post, ' '); i >= 0 {
		post = post[:i]
	}
	return pre, post
}

// scanHunkHeader returns the old and new line counts of "@@ -a,b +c,d @@"
// (a missing count is 1), as git's scan_hunk_header.
func scanHunkHeader(line string) (before, after int) {
	q := line[4:]
	before, after = 1, 1
	n := digitsPrefix(q)
	if n < len(q) && q[n] == ',' {
		q = q[n+1:]
		n = digitsPrefix(q)
		before = atoi(q[:n])
	}
	if n == 0 || n+1 >= len(q) || q[n] != ' ' || q[n+1] != '+' {
		return before, after
	}
	r := q[n+2:]
	n = digitsPrefix(r)
	if n < len(r) && r[n] == ',' {
		r = r[n+1:]
		n = digitsPrefix(r)
		after = atoi(r[:n])
	}
	return before, after
}

func digitsPrefix(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

func atoi(s string) int {
	v := 0
	for i := 0; i < len(s); i++ {
		v = v*10 + int(s[i]-'0')
	}
	return v
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// removeSpace drops every ASCII whitespace byte, as git's remove_space.
func removeSpace(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\v', '\f', '\r':
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}
