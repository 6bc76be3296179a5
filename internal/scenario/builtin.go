package scenario

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
)

//go:embed builtin/*.json
var builtinFS embed.FS

// BuiltinNames returns the names of the built-in scenarios, sorted.
func BuiltinNames() []string {
	ents, _ := fs.ReadDir(builtinFS, "builtin")
	var out []string
	for _, e := range ents {
		out = append(out, strings.TrimSuffix(e.Name(), ".json"))
	}
	sort.Strings(out)
	return out
}

// Builtin returns the built-in scenario called name, checked (Check).
func Builtin(name string) (*Scenario, error) {
	data, err := builtinFS.ReadFile(path.Join("builtin", name+".json"))
	if err != nil {
		return nil, fmt.Errorf("no built-in scenario %q (built-in: %s)", name, strings.Join(BuiltinNames(), ", "))
	}
	s, err := Parse(data)
	if err == nil {
		err = s.Check(context.Background())
	}
	if err != nil {
		return nil, fmt.Errorf("built-in scenario %s: %w", name, err)
	}
	return s, nil
}

// Load is LoadContext without a context.
func Load(nameOrFile string) (*Scenario, error) { return LoadContext(context.Background(), nameOrFile) }

// LoadContext returns the built-in scenario called nameOrFile, or else
// reads the scenario file of that path; either is checked whole (Check:
// format, history, every commit's knobs against the model), so a bad
// scenario fails here, before anything is stored. A file larger than
// MaxFileBytes or with more than MaxCommits commits is refused.
func LoadContext(ctx context.Context, nameOrFile string) (*Scenario, error) {
	for _, n := range BuiltinNames() {
		if n == nameOrFile {
			return Builtin(n)
		}
	}
	data, err := readLimited(nameOrFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%q is neither a built-in scenario (%s) nor a file", nameOrFile, strings.Join(BuiltinNames(), ", "))
	}
	if err != nil {
		return nil, fmt.Errorf("reading scenario %s: %w", nameOrFile, err)
	}
	s, err := Parse(data)
	if err == nil {
		err = s.Check(ctx)
	}
	if err != nil {
		return nil, fmt.Errorf("scenario file %s: %w", nameOrFile, err)
	}
	return s, nil
}

// readLimited reads a file of at most MaxFileBytes.
func readLimited(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("larger than the limit of %d MiB", MaxFileBytes>>20)
	}
	return data, nil
}
