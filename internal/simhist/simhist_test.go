package simhist

import (
	"context"
	"testing"

	"github.com/perfbisect/perfbisect/internal/bisect"
)

var _ bisect.History = (*Line)(nil)

func TestLine(t *testing.T) {
	ctx := context.Background()
	h := NewLine("x", 5)
	if again := NewLine("x", 5); again.Commits[3] != h.Commits[3] {
		t.Errorf("one name, two histories: %v, %v", again.Commits[3], h.Commits[3])
	}
	if other := NewLine("y", 5); other.Commits[3].Hash == h.Commits[3].Hash {
		t.Error("two names, one hash")
	}
	r, err := h.Range(ctx, h.Commits[1].Hash, h.Commits[3].Hash)
	if err != nil || len(r) != 2 || r[0] != h.Commits[2] || r[1] != h.Commits[3] {
		t.Errorf("Range(1, 3) = %v, %v; want commits 2 and 3", r, err)
	}
	if mb, _ := h.MergeBase(ctx, h.Commits[4].Hash, h.Commits[2].Hash); mb != h.Commits[2] {
		t.Errorf("MergeBase(4, 2) = %v, want commit 2", mb)
	}
	if ok, _ := h.IsAncestor(ctx, h.Commits[4].Hash, h.Commits[2].Hash); ok {
		t.Error("commit 4 an ancestor of commit 2")
	}
	if i, ok := h.Index(h.Commits[4].Hash); !ok || i != 4 {
		t.Errorf("Index = %d, %v", i, ok)
	}
	if _, err := h.Resolve(ctx, "nope"); err == nil {
		t.Error("an unknown revision resolved")
	}
}
