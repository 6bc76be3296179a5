package scenario

import (
	"container/heap"
	"context"
	"fmt"
)

// isAncestor reports whether commit a is d or an ancestor of d. Parents
// always come earlier in the list, so the walk never goes below index a:
// it costs the commits between the two, not the whole history.
func (p *planner) isAncestor(a, d int) bool {
	seen := map[int]bool{d: true}
	stack := []int{d}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if x == a {
			return true
		}
		for _, par := range p.parents[x] {
			if par >= a && !seen[par] {
				seen[par] = true
				stack = append(stack, par)
			}
		}
	}
	return false
}

// mergeBase returns the single best common ancestor of commits a and b,
// the way git's paint_down_to_common finds it: walk both histories
// newest first (list order is a topological order), painting each commit
// with the sides that reach it, and stop once every commit left to visit
// is below a common ancestor already found. The cost follows the commits
// since the merge base, not the length of the history.
func (p *planner) mergeBase(ctx context.Context, a, b int) (int, error) {
	const (
		sideA  = 1
		sideB  = 2
		stale  = 4
		result = 8
	)
	flags := map[int]uint8{}
	var q maxHeap
	active := 0 // queued commits that are not stale
	push := func(x int, f uint8) {
		old, queued := flags[x]
		if queued && old|f == old {
			return
		}
		flags[x] = old | f
		switch {
		case !queued:
			heap.Push(&q, x)
			if f&stale == 0 {
				active++
			}
		case old&stale == 0 && f&stale != 0:
			active--
		}
	}
	push(a, sideA)
	push(b, sideB)
	var found []int
	for n := 0; active > 0; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return 0, ctx.Err()
		}
		x := heap.Pop(&q).(int)
		f := flags[x]
		if f&stale == 0 {
			active--
		}
		if f&(sideA|sideB) == sideA|sideB && f&stale == 0 {
			if f&result == 0 {
				flags[x] |= result
				found = append(found, x)
			}
			f |= stale
		}
		for _, par := range p.parents[x] {
			push(par, f&(sideA|sideB|stale))
		}
	}
	var best []int
	for _, x := range found {
		dominated := false
		for _, y := range found {
			if y != x && p.isAncestor(x, y) {
				dominated = true
				break
			}
		}
		if !dominated {
			best = append(best, x)
		}
	}
	if len(best) != 1 {
		return 0, fmt.Errorf("%d merge bases (criss-cross merges are not supported)", len(best))
	}
	return best[0], nil
}

// A maxHeap of commit indices pops the newest commit first.
type maxHeap []int

func (h maxHeap) Len() int           { return len(h) }
func (h maxHeap) Less(i, j int) bool { return h[i] > h[j] }
func (h maxHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *maxHeap) Push(x any)        { *h = append(*h, x.(int)) }
func (h *maxHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
