package main

import (
	"fmt"

	"github.com/perfbisect/perfbisect/internal/simhist"
)

// A lineHistory is a straight line of commits c0..cN with one step: the
// level is base before commit step and base·(1+delta) from it on.
type lineHistory struct {
	*simhist.Line
	step  int
	base  float64
	delta float64
}

func newLineHistory(seed uint64, n, step int, base, delta float64) *lineHistory {
	return &lineHistory{Line: simhist.NewLine(fmt.Sprintf("fleet-sim-%d", seed), n+1), step: step, base: base, delta: delta}
}

// level is a commit's true level.
func (h *lineHistory) level(hash string) float64 {
	if i, _ := h.Index(hash); i >= h.step {
		return h.base * (1 + h.delta)
	}
	return h.base
}
