package report

import (
	"io"
	"testing"
)

// BenchmarkMarkdown renders the report of the real MDEV dry run (14
// measured commits, 2 culprits).
func BenchmarkMarkdown(b *testing.B) {
	in := loadCase(&testing.T{}, "mdev-dry-run")
	b.ReportAllocs()
	for b.Loop() {
		if err := Markdown(io.Discard, in, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSVG draws the same report's chart.
func BenchmarkSVG(b *testing.B) {
	in := loadCase(&testing.T{}, "mdev-dry-run")
	b.ReportAllocs()
	for b.Loop() {
		if err := SVG(io.Discard, in, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
