package bisect

import (
	"context"
	"errors"
)

// id returns c's binary identity from the Measurer, "" when unknown (the
// Measurer is no Identifier, or c did not build: the measuring will say).
func (r *run) id(ctx context.Context, c Commit) (string, error) {
	idf, ok := r.l.m.(Identifier)
	if !ok {
		return "", nil
	}
	if id, ok := r.ids[c.Hash]; ok {
		return id, nil
	}
	id, err := idf.Identity(ctx, c)
	if errors.Is(err, ErrUnbuildable) || errors.Is(err, ErrCrashed) {
		id, err = "", nil
	}
	if err != nil {
		return "", err
	}
	r.ids[c.Hash] = id
	return id, nil
}

// byIdentity classifies c without a run when its binary is identical to
// one end's of s: like-low or like-high, else "".
func (r *run) byIdentity(ctx context.Context, s span, c Commit) (Verdict, error) {
	if r.l.measured(c) {
		return "", nil
	}
	id, err := r.id(ctx, c)
	if err != nil || id == "" {
		return "", err
	}
	for _, end := range []struct {
		c Commit
		v Verdict
	}{{s.first(), VerdictLikeLow}, {s.last(), VerdictLikeHigh}} {
		eid, err := r.id(ctx, end.c)
		if err != nil {
			return "", err
		}
		if eid == id {
			r.res.Identical = append(r.res.Identical, Identical{Commit: c, SameAs: end.c})
			r.event("bisect", "%s builds the same binary as %s: %s without a run", c.Short, end.c.Short, end.v)
			return end.v, nil
		}
	}
	return "", nil
}

// sameBinary reports whether s's ends build one binary, so nothing in s
// can have changed the metric (a change and its revert inside it cancel
// at the ends too). Identity errors count as "not known to be the same".
func (r *run) sameBinary(ctx context.Context, s span) bool {
	a, err := r.id(ctx, s.first())
	if err != nil || a == "" {
		return false
	}
	b, err := r.id(ctx, s.last())
	if err != nil || b != a {
		return false
	}
	r.res.Identical = append(r.res.Identical, Identical{Commit: s.last(), SameAs: s.first()})
	r.event("remaining", "%s..%s: both ends build the same binary: no change to find", s.first().Short, s.last().Short)
	return true
}
