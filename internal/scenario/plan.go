package scenario

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
)

// Paths in a materialised tree.
const (
	KnobDir    = "knobs"         // one file per knob: knobs/<key> holds "<value>\n"
	ChangeDir  = "changes"       // one file per non-merge commit, see ChangePath
	HeaderFile = "SCENARIO.json" // the Header, in the root commit
	ReadmeFile = "README.md"     // a note for people who open the repository
)

// ChangePath returns the path of commit id's change record:
// changes/<x>/<y>/<z>/<id>, where xyz are the first three hex digits of
// the SHA-1 of id. Spreading the records over 4096 small folders keeps
// every commit's new trees small, so materialising costs time and memory
// linear in the number of commits (one flat folder of n records would
// make each commit write a tree of n entries).
func ChangePath(id string) string {
	sum := sha1.Sum([]byte(id))
	h := hex.EncodeToString(sum[:2])
	return ChangeDir + "/" + h[0:1] + "/" + h[1:2] + "/" + h[2:3] + "/" + id
}

// A State is what a commit's tree holds: its files, and the knobs those
// files spell.
type State struct {
	ID    string
	Knobs map[string]string // effective knobs: key -> value; shared with the parent when unchanged
	tree  *node
	// knobsChanged is set when the knobs differ from the first parent's
	// (always for the root and for merges that change them).
	knobsChanged bool
}

// Files returns every file of the commit's tree: path -> content.
func (st State) Files() map[string]string {
	out := map[string]string{}
	st.tree.flatten("", out)
	return out
}

// a change is a set of file edits; a nil content deletes the file.
type change map[string]*string

// States returns the tree of every commit, in scenario order. It fails
// when a merge has a conflict its knobs do not resolve, when a cherry-pick
// would not give git the same patch, or when a commit changes nothing.
func (s *Scenario) States() ([]State, error) { return s.states(context.Background()) }

// states is States, stopping with ctx's error when ctx ends. Each commit
// costs time proportional to its own change (and, for a merge, to the
// commits since the merge base), not to the length of the history.
func (s *Scenario) states(ctx context.Context) ([]State, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	p := newPlanner(s)
	out := make([]State, len(s.Commits))
	for i, c := range s.Commits {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		t, err := p.files(ctx, i)
		if err != nil {
			return nil, fmt.Errorf("commit %d (%q): %w", i+1, c.ID, err)
		}
		p.trees[i] = t
		out[i] = State{ID: c.ID, tree: t, knobsChanged: true}
		if ps := p.parents[i]; len(ps) > 0 && out[ps[0]].tree.dir(KnobDir) == t.dir(KnobDir) {
			out[i].Knobs, out[i].knobsChanged = out[ps[0]].Knobs, false
		} else {
			out[i].Knobs = knobsOf(t)
		}
	}
	return out, nil
}

// A planner computes the commits' trees in order.
type planner struct {
	s       *Scenario
	index   map[string]int
	parents [][]int // parents of each commit, by index (always smaller)
	trees   []*node // tree of each commit planned so far
	root    *node   // the files every history starts with
}

func newPlanner(s *Scenario) *planner {
	p := &planner{s: s, index: make(map[string]int, len(s.Commits)),
		parents: make([][]int, len(s.Commits)), trees: make([]*node, len(s.Commits))}
	for i, c := range s.Commits {
		p.index[c.ID] = i
	}
	for i := range s.Commits {
		for _, id := range s.parentsOf(i) {
			p.parents[i] = append(p.parents[i], p.index[id])
		}
	}
	p.root = p.rootTree()
	return p
}

// own returns the change commit i makes itself.
func (p *planner) own(i int) change {
	c := p.s.Commits[i]
	if c.CherryPick != "" {
		return p.own(p.index[c.CherryPick])
	}
	ch := change{}
	for k, v := range c.Knobs {
		if v == nil {
			ch[KnobDir+"/"+k] = nil
		} else {
			s := *v + "\n"
			ch[KnobDir+"/"+k] = &s
		}
	}
	if len(p.parents[i]) < 2 {
		s := c.Subject + "\n"
		ch[ChangePath(c.ID)] = &s
	}
	return ch
}

// files computes the tree of commit i from its parents' trees.
func (p *planner) files(ctx context.Context, i int) (*node, error) {
	parents := p.parents[i]
	var t *node
	switch {
	case len(parents) == 0:
		t = p.root
	case len(parents) == 1:
		t = p.trees[parents[0]]
	default:
		var err error
		if t, err = p.merge(ctx, i, parents); err != nil {
			return nil, err
		}
	}
	own := p.own(i)
	if p.s.Commits[i].CherryPick != "" {
		if err := p.checkPick(i, t, own); err != nil {
			return nil, err
		}
	}
	changed := false
	for _, path := range sortedKeys(own) {
		var ch bool
		if v := own[path]; v != nil {
			t, ch = t.set(path, *v, true)
		} else {
			t, ch = t.set(path, "", false)
		}
		changed = changed || ch
	}
	if !changed && len(parents) < 2 {
		return nil, fmt.Errorf("changes nothing")
	}
	return t, nil
}

// checkPick makes sure re-applying the picked change here gives the same
// diff as at the picked commit: same pre-images, and not already applied.
func (p *planner) checkPick(i int, t *node, own change) error {
	pick := p.index[p.s.Commits[i].CherryPick]
	if p.isAncestor(pick, i) {
		return fmt.Errorf("cherry_pick %q is already an ancestor", p.s.Commits[pick].ID)
	}
	base := p.root
	if pp := p.parents[pick]; len(pp) > 0 {
		base = p.trees[pp[0]]
	}
	for _, path := range sortedKeys(own) {
		here, hok := t.get(path)
		there, tok := base.get(path)
		if hok != tok || here != there {
			return fmt.Errorf("cherry_pick %q: %s is %s here but was %s before %q, so git would see a different patch",
				p.s.Commits[pick].ID, path, describe(here, hok), describe(there, tok), p.s.Commits[pick].ID)
		}
	}
	return nil
}

func describe(content string, ok bool) string {
	if !ok {
		return "absent"
	}
	return fmt.Sprintf("%q", strings.TrimSuffix(content, "\n"))
}

// merge combines the parents' trees: the first parent's, plus what each
// other parent changed since its merge base with the first.
func (p *planner) merge(ctx context.Context, i int, parents []int) (*node, error) {
	first := parents[0]
	t := p.trees[first]
	resolved := p.s.Commits[i].Knobs
	for _, other := range parents[1:] {
		id, firstID := p.s.Commits[other].ID, p.s.Commits[first].ID
		mb, err := p.mergeBase(ctx, first, other)
		if err != nil {
			return nil, fmt.Errorf("merging %q into %q: %w", id, firstID, err)
		}
		err = diffTrees(p.trees[mb], p.trees[other], "", func(path, b string, bok bool, th string, tok bool) error {
			o, ook := t.get(path)
			if (ook == bok && o == b) || (ook == tok && o == th) {
				t, _ = t.set(path, th, tok)
				return nil
			}
			if k, isKnob := strings.CutPrefix(path, KnobDir+"/"); isKnob {
				if _, ok := resolved[k]; ok {
					return nil // the merge's own knobs decide
				}
			}
			return fmt.Errorf("merging %q: %s changed on both sides since %q (%s vs %s); set it in the merge's knobs",
				id, path, p.s.Commits[mb].ID, describe(o, ook), describe(th, tok))
		})
		if err != nil {
			return nil, err
		}
	}
	return t, nil
}

// rootTree returns the files every history starts with.
func (p *planner) rootTree() *node {
	h, _ := json.MarshalIndent(p.s.Header, "", "  ")
	readme := fmt.Sprintf("# Scenario %s\n\n%s\n\nMaterialised by perfbisect from a dry-run scenario. Each file under %s/\n"+
		"is one knob of the AHI model (its value on one line); each file under\n%s/x/y/z/ records the change of one commit. %s describes the workload.\n",
		p.s.Name, p.s.Description, KnobDir, ChangeDir, HeaderFile)
	return &node{files: map[string]string{HeaderFile: string(h) + "\n", ReadmeFile: readme}}
}

// knobsOf reads the knob files of a tree.
func knobsOf(t *node) map[string]string {
	out := map[string]string{}
	if d := t.dir(KnobDir); d != nil {
		for k, content := range d.files {
			out[k] = strings.TrimSpace(content)
		}
	}
	return out
}
