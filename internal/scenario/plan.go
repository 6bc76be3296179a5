package scenario

import (
	"encoding/json"
	"fmt"
	"maps"
	"sort"
	"strings"
)

// Paths in a materialised tree.
const (
	KnobDir    = "knobs"         // one file per knob: knobs/<key> holds "<value>\n"
	ChangeDir  = "changes"       // one file per non-merge commit: changes/<id> holds "<subject>\n"
	HeaderFile = "SCENARIO.json" // the Header, in the root commit
	ReadmeFile = "README.md"     // a note for people who open the repository
)

// A State is what a commit's tree holds: every file by path, and the
// knobs those files spell.
type State struct {
	ID    string
	Files map[string]string // path -> content
	Knobs map[string]string // effective knobs: key -> value
}

// a change is a set of file edits; a nil content deletes the file.
type change map[string]*string

// States returns the tree of every commit, in scenario order. It fails
// when a merge has a conflict its knobs do not resolve, when a cherry-pick
// would not give git the same patch, or when a commit changes nothing.
func (s *Scenario) States() ([]State, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	p := planner{s: s, index: map[string]int{}, anc: make([]map[int]bool, len(s.Commits))}
	for i, c := range s.Commits {
		p.index[c.ID] = i
	}
	out := make([]State, len(s.Commits))
	for i, c := range s.Commits {
		files, err := p.files(i)
		if err != nil {
			return nil, fmt.Errorf("commit %d (%q): %w", i+1, c.ID, err)
		}
		p.states = append(p.states, files)
		out[i] = State{ID: c.ID, Files: files, Knobs: knobsOf(files)}
	}
	return out, nil
}

type planner struct {
	s      *Scenario
	index  map[string]int
	anc    []map[int]bool      // ancestors of each commit, itself included
	states []map[string]string // files of each commit planned so far
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
	if len(p.s.parentsOf(i)) < 2 {
		s := c.Subject + "\n"
		ch[ChangeDir+"/"+c.ID] = &s
	}
	return ch
}

// files computes the tree of commit i from its parents' trees.
func (p *planner) files(i int) (map[string]string, error) {
	parents := p.s.parentsOf(i)
	p.anc[i] = map[int]bool{i: true}
	for _, id := range parents {
		maps.Copy(p.anc[i], p.anc[p.index[id]])
	}
	var files map[string]string
	switch {
	case len(parents) == 0:
		files = p.rootFiles()
	case len(parents) == 1:
		files = maps.Clone(p.states[p.index[parents[0]]])
	default:
		var err error
		if files, err = p.merge(i, parents); err != nil {
			return nil, err
		}
	}
	c := p.s.Commits[i]
	own := p.own(i)
	if c.CherryPick != "" {
		if err := p.checkPick(i, files, own); err != nil {
			return nil, err
		}
	}
	before := maps.Clone(files)
	apply(files, own)
	if maps.Equal(before, files) && len(parents) < 2 {
		return nil, fmt.Errorf("changes nothing")
	}
	return files, nil
}

// checkPick makes sure re-applying the picked change here gives the same
// diff as at the picked commit: same pre-images, and not already applied.
func (p *planner) checkPick(i int, files map[string]string, own change) error {
	pick := p.index[p.s.Commits[i].CherryPick]
	if p.anc[i][pick] {
		return fmt.Errorf("cherry_pick %q is already an ancestor", p.s.Commits[pick].ID)
	}
	var base map[string]string
	if pp := p.s.parentsOf(pick); len(pp) > 0 {
		base = p.states[p.index[pp[0]]]
	} else {
		base = p.rootFiles()
	}
	for _, path := range sortedKeys(own) {
		here, hok := files[path]
		there, tok := base[path]
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
func (p *planner) merge(i int, parents []string) (map[string]string, error) {
	first := p.index[parents[0]]
	files := maps.Clone(p.states[first])
	resolved := p.s.Commits[i].Knobs
	for _, id := range parents[1:] {
		other := p.index[id]
		mb, err := p.mergeBase(first, other)
		if err != nil {
			return nil, fmt.Errorf("merging %q into %q: %w", id, parents[0], err)
		}
		base, theirs := p.states[mb], p.states[other]
		for _, path := range unionKeys(base, theirs) {
			b, bok := base[path]
			t, tok := theirs[path]
			if bok == tok && b == t {
				continue // unchanged on their side
			}
			o, ook := files[path]
			if (ook == bok && o == b) || (ook == tok && o == t) {
				setFile(files, path, t, tok)
				continue
			}
			if k, isKnob := strings.CutPrefix(path, KnobDir+"/"); isKnob {
				if _, ok := resolved[k]; ok {
					continue // the merge's own knobs decide
				}
			}
			return nil, fmt.Errorf("merging %q: %s changed on both sides since %q (%s vs %s); set it in the merge's knobs",
				id, path, p.s.Commits[mb].ID, describe(o, ook), describe(t, tok))
		}
	}
	return files, nil
}

// mergeBase returns the single best common ancestor of commits a and b.
func (p *planner) mergeBase(a, b int) (int, error) {
	var common []int
	for x := range p.anc[a] {
		if p.anc[b][x] {
			common = append(common, x)
		}
	}
	var best []int
	for _, x := range common {
		dominated := false
		for _, y := range common {
			if y != x && p.anc[y][x] {
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

// rootFiles returns the files every history starts with.
func (p *planner) rootFiles() map[string]string {
	h, _ := json.MarshalIndent(p.s.Header, "", "  ")
	readme := fmt.Sprintf("# Scenario %s\n\n%s\n\nMaterialised by perfbisect from a dry-run scenario. Each file under %s/\n"+
		"is one knob of the AHI model (its value on one line); each file under\n%s/ records the change of one commit. %s describes the workload.\n",
		p.s.Name, p.s.Description, KnobDir, ChangeDir, HeaderFile)
	return map[string]string{HeaderFile: string(h) + "\n", ReadmeFile: readme}
}

func apply(files map[string]string, ch change) {
	for path, v := range ch {
		if v == nil {
			delete(files, path)
		} else {
			files[path] = *v
		}
	}
}

func setFile(files map[string]string, path, content string, ok bool) {
	if ok {
		files[path] = content
	} else {
		delete(files, path)
	}
}

// knobsOf reads the knob files of a tree.
func knobsOf(files map[string]string) map[string]string {
	out := map[string]string{}
	for path, content := range files {
		if k, ok := strings.CutPrefix(path, KnobDir+"/"); ok {
			out[k] = strings.TrimSpace(content)
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func unionKeys(a, b map[string]string) []string {
	u := maps.Clone(a)
	for k, v := range b {
		u[k] = v
	}
	return sortedKeys(u)
}
