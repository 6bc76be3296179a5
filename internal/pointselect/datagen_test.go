package pointselect

import (
	"bytes"
	"io"
	"regexp"
	"testing"
)

func TestRowsLookLikeSysbench(t *testing.T) {
	g := &rowGen{k: mustDist(DefaultRandConfig, 1000)}
	g.rng.Seed(1)
	csv := regexp.MustCompile(`^[0-9]+,([0-9]{11}-){9}[0-9]{11},([0-9]{11}-){4}[0-9]{11}\n$`)
	ins := regexp.MustCompile(`^\(7, [0-9]+, '([0-9]{11}-){9}[0-9]{11}', '([0-9]{11}-){4}[0-9]{11}'\)$`)
	digits := make([]int, 10)
	for i := 0; i < 2000; i++ {
		row := g.appendCSV(nil, 1, false)
		if !csv.Match(row) {
			t.Fatalf("CSV row %q", row)
		}
		for _, c := range row[bytes.IndexByte(row, ',')+1:] {
			if c >= '0' && c <= '9' {
				digits[c-'0']++
			}
		}
		if v := g.appendValues(nil, 7, true); !ins.Match(v) {
			t.Fatalf("VALUES row %q", v)
		}
	}
	// 2000 rows x 165 digits: each digit ≈ 33,000 times; chi-square df 9,
	// 0.999 quantile 27.9.
	chi := 0.0
	for _, n := range digits {
		e := 2000 * 165 / 10.0
		chi += (float64(n) - e) * (float64(n) - e) / e
	}
	if chi > 27.9 {
		t.Errorf("digits not uniform: %v (chi-square %.1f)", digits, chi)
	}
}

func BenchmarkRowGenCSV(b *testing.B) {
	g := &rowGen{k: mustDist(DefaultRandConfig, 1000000)}
	g.rng.Seed(1)
	r := &csvReader{g: g, next: 1, n: int64(b.N)}
	b.SetBytes(187)
	b.ReportAllocs()
	b.ResetTimer()
	io.Copy(io.Discard, r)
}
