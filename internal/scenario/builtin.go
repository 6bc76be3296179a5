package scenario

import (
	"embed"
	"errors"
	"fmt"
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

// Builtin returns the built-in scenario called name.
func Builtin(name string) (*Scenario, error) {
	data, err := builtinFS.ReadFile(path.Join("builtin", name+".json"))
	if err != nil {
		return nil, fmt.Errorf("no built-in scenario %q (built-in: %s)", name, strings.Join(BuiltinNames(), ", "))
	}
	s, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("built-in scenario %s: %w", name, err)
	}
	return s, nil
}

// Load returns the built-in scenario called nameOrFile, or else reads the
// scenario file of that path.
func Load(nameOrFile string) (*Scenario, error) {
	for _, n := range BuiltinNames() {
		if n == nameOrFile {
			return Builtin(n)
		}
	}
	data, err := os.ReadFile(nameOrFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%q is neither a built-in scenario (%s) nor a file", nameOrFile, strings.Join(BuiltinNames(), ", "))
	}
	if err != nil {
		return nil, fmt.Errorf("reading scenario %s: %w", nameOrFile, err)
	}
	s, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("scenario file %s: %w", nameOrFile, err)
	}
	return s, nil
}
