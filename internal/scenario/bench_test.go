package scenario

import (
	"context"
	"path/filepath"
	"testing"
)

func BenchmarkMaterializeMDEV(b *testing.B) {
	s, err := Builtin("mdev-12.0-point-select")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := Materialize(context.Background(), s, filepath.Join(b.TempDir(), "m")); err != nil {
			b.Fatal(err)
		}
	}
}
