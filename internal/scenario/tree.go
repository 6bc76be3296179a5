package scenario

import (
	"maps"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// A node is an immutable directory tree: its files and subfolders by
// name. Changing a file (set) copies only the folders on the file's path
// and shares the rest, so each commit's tree costs about its own change,
// and unchanged folders of two commits are the same *node. A nil *node is
// the empty folder. Its git hash is cached once written (objWriter.tree).
type node struct {
	files map[string]string // name -> content
	dirs  map[string]*node  // name -> folder, never empty
	hash  plumbing.Hash     // git tree hash once written; zero before
}

// dir returns the subfolder name of n, or nil.
func (n *node) dir(name string) *node {
	if n == nil {
		return nil
	}
	return n.dirs[name]
}

// get returns the content of the file at path ('/'-separated).
func (n *node) get(path string) (string, bool) {
	for n != nil {
		d, rest, isDir := strings.Cut(path, "/")
		if !isDir {
			v, ok := n.files[path]
			return v, ok
		}
		n, path = n.dirs[d], rest
	}
	return "", false
}

// set returns n with the file at path set to content (ok) or removed
// (!ok), and whether that changed anything; n itself is not modified.
// Folders left empty disappear, as in git.
func (n *node) set(path, content string, ok bool) (*node, bool) {
	d, rest, isDir := strings.Cut(path, "/")
	if !isDir {
		old, had := "", false
		if n != nil {
			old, had = n.files[path]
		}
		if had == ok && old == content {
			return n, false
		}
		c := n.clone()
		if ok {
			c.files[path] = content
		} else {
			delete(c.files, path)
		}
		return c.orNil(), true
	}
	sub, changed := n.dir(d).set(rest, content, ok)
	if !changed {
		return n, false
	}
	c := n.clone()
	if sub == nil {
		delete(c.dirs, d)
	} else {
		c.dirs[d] = sub
	}
	return c.orNil(), true
}

// clone returns a shallow copy of n with empty maps for a nil n.
func (n *node) clone() *node {
	if n == nil {
		return &node{files: map[string]string{}, dirs: map[string]*node{}}
	}
	c := &node{files: maps.Clone(n.files), dirs: maps.Clone(n.dirs)}
	if c.files == nil {
		c.files = map[string]string{}
	}
	if c.dirs == nil {
		c.dirs = map[string]*node{}
	}
	return c
}

func (n *node) orNil() *node {
	if len(n.files) == 0 && len(n.dirs) == 0 {
		return nil
	}
	return n
}

// flatten adds every file of n to out under prefix.
func (n *node) flatten(prefix string, out map[string]string) {
	if n == nil {
		return
	}
	for name, content := range n.files {
		out[prefix+name] = content
	}
	for name, sub := range n.dirs {
		sub.flatten(prefix+name+"/", out)
	}
}

// diffTrees calls fn, in path order, for every file that differs between
// a and b, with its content on each side; folders shared by both (the
// same *node) are skipped without a look, so the cost follows the
// difference, not the size of the trees.
func diffTrees(a, b *node, prefix string, fn func(path, av string, aok bool, bv string, bok bool) error) error {
	if a == b {
		return nil
	}
	var af, bf map[string]string
	var ad, bd map[string]*node
	if a != nil {
		af, ad = a.files, a.dirs
	}
	if b != nil {
		bf, bd = b.files, b.dirs
	}
	for _, name := range unionNames(af, bf) {
		av, aok := af[name]
		bv, bok := bf[name]
		if aok != bok || av != bv {
			if err := fn(prefix+name, av, aok, bv, bok); err != nil {
				return err
			}
		}
	}
	for _, name := range unionNames(ad, bd) {
		if err := diffTrees(ad[name], bd[name], prefix+name+"/", fn); err != nil {
			return err
		}
	}
	return nil
}

func unionNames[V any](a, b map[string]V) []string {
	names := make([]string, 0, len(a)+len(b))
	for k := range a {
		names = append(names, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	return names
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
