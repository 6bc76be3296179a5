package track

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
)

// Fetch fetches branches from remote into the clone at dir (go-git), as
// remote-tracking refs refs/remotes/<remote>/<branch>, and returns each
// branch's tip. A fetch that brings nothing new is not an error.
func Fetch(ctx context.Context, dir, remote string, branches []string) (map[string]string, error) {
	g, err := git.PlainOpen(dir)
	if err != nil {
		return nil, fmt.Errorf("opening clone %s: %w", dir, err)
	}
	specs := make([]config.RefSpec, len(branches))
	for i, b := range branches {
		specs[i] = config.RefSpec(fmt.Sprintf("+refs/heads/%s:refs/remotes/%s/%s", b, remote, b))
	}
	err = g.FetchContext(ctx, &git.FetchOptions{RemoteName: remote, RefSpecs: specs, Tags: git.NoTags})
	if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
		return nil, fmt.Errorf("fetching %v from %s: %w", branches, remote, err)
	}
	tips := map[string]string{}
	for _, b := range branches {
		ref, err := g.Reference(plumbing.NewRemoteReferenceName(remote, b), true)
		if err != nil {
			return nil, fmt.Errorf("branch %s on %s: %w", b, remote, err)
		}
		tips[b] = ref.Hash().String()
	}
	return tips, nil
}

// A Nights is a dry run's calendar: for each branch, its first-parent
// history with commit times, cut into nights of a fixed length from the
// oldest commit on.
type Nights struct {
	Start  time.Time
	Length time.Duration
	Count  int // nights until every branch's newest commit is in
	chains map[string][]dated
}

type dated struct {
	hash string
	at   time.Time
}

// ScenarioNights reads the first-parent history of each branch of the
// repository at dir (a materialised scenario) and cuts it into nights of
// length: night n (0-based) ends at the oldest commit's time + (n+1) ×
// length, and a branch's tip that night is its newest commit before then.
func ScenarioNights(ctx context.Context, dir string, branches []string, length time.Duration) (*Nights, error) {
	g, err := git.PlainOpen(dir)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", dir, err)
	}
	n := &Nights{Length: length, chains: map[string][]dated{}}
	var newest time.Time
	for _, b := range branches {
		ref, err := g.Reference(plumbing.NewBranchReferenceName(b), true)
		if err != nil {
			return nil, fmt.Errorf("branch %s: %w", b, err)
		}
		chain, err := firstParents(ctx, g, ref.Hash())
		if err != nil {
			return nil, fmt.Errorf("history of %s: %w", b, err)
		}
		n.chains[b] = chain
		if n.Start.IsZero() || chain[0].at.Before(n.Start) {
			n.Start = chain[0].at
		}
		if last := chain[len(chain)-1].at; last.After(newest) {
			newest = last
		}
	}
	n.Count = int(newest.Sub(n.Start)/length) + 1
	return n, nil
}

// firstParents returns the first-parent chain ending at tip, oldest first.
func firstParents(ctx context.Context, g *git.Repository, tip plumbing.Hash) ([]dated, error) {
	var out []dated
	h := tip
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c, err := g.CommitObject(h)
		if err != nil {
			return nil, err
		}
		out = append(out, dated{hash: c.Hash.String(), at: c.Committer.When})
		if c.NumParents() == 0 {
			break
		}
		h = c.ParentHashes[0]
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}

// End is the end of night i (0-based).
func (n *Nights) End(i int) time.Time { return n.Start.Add(time.Duration(i+1) * n.Length) }

// Tips returns each branch's tip at the end of night i; a branch with no
// commit yet is left out.
func (n *Nights) Tips(i int) map[string]string {
	end := n.End(i)
	tips := map[string]string{}
	for b, chain := range n.chains {
		k := sort.Search(len(chain), func(k int) bool { return !chain[k].at.Before(end) })
		if k > 0 {
			tips[b] = chain[k-1].hash
		}
	}
	return tips
}
