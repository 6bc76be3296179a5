package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// tps formats a throughput with thousands separators and one decimal:
// 378817.54 -> "378,817.5".
func tps(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "n/a"
	}
	s := strconv.FormatFloat(math.Abs(v), 'f', 1, 64)
	intPart, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	if v < 0 {
		b.WriteByte('-')
	}
	for i, r := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String() + "." + frac
}

// tpsInt formats a throughput rounded to a whole number: "378,818".
func tpsInt(v float64) string {
	return strings.TrimSuffix(tps(math.Round(v)), ".0")
}

// signedTPS formats a TPS difference with its sign: "+2,306.5".
func signedTPS(v float64) string {
	if v >= 0 {
		return "+" + tps(v)
	}
	return tps(v)
}

// pct formats a relative change as a signed percentage: 0.00612 -> "+0.61 %".
func pct(f float64) string {
	if math.Abs(f) < 0.00005 {
		return "0.00 %"
	}
	return fmt.Sprintf("%+.2f %%", 100*f)
}

// absPct formats the size of a relative change: -0.00612 -> "0.61 %".
func absPct(f float64) string {
	return fmt.Sprintf("%.2f %%", 100*math.Abs(f))
}

// pValue formats a p-value: small ones in scientific notation.
func pValue(p float64) string {
	switch {
	case math.IsNaN(p):
		return "n/a"
	case p < 0.001:
		return fmt.Sprintf("%.1e", p)
	default:
		return fmt.Sprintf("%.3f", p)
	}
}

// seconds formats a duration in seconds without trailing zeros: "400 s".
func seconds(s float64) string {
	return strconv.FormatFloat(s, 'f', -1, 64) + " s"
}

// gib formats a byte count in GiB.
func gib(b int64) string {
	return strconv.FormatFloat(float64(b)/(1<<30), 'f', -1, 64) + " GiB"
}

// plural returns "1 run" or "n runs".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// mdEscape escapes the characters that would break a Markdown table cell
// or inline text.
func mdEscape(s string) string { return mdEscaper.Replace(s) }

var mdEscaper = strings.NewReplacer("|", `\|`, "*", `\*`, "_", `\_`, "`", "'", "<", "&lt;", ">", "&gt;", "[", `\[`, "]", `\]`, "\n", " ")
