package build

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// An Artifact is one installed build of a tree.
type Artifact struct {
	Prefix     string `json:"prefix"`      // the install prefix (MariaDB's --basedir)
	Binary     string `json:"binary"`      // absolute path of the server binary in Prefix
	TreeHash   string `json:"tree_hash"`   // the source tree built
	RecipeHash string `json:"recipe_hash"` // Recipe.Hash of the recipe used
	BinaryHash string `json:"binary_hash"` // hex sha256 of Binary
	// SameBinaryAs is the tree hash of the first build (same recipe) whose
	// binary was byte-identical to this one, "" when this binary is new:
	// that build's measurements hold for this one.
	SameBinaryAs string        `json:"same_binary_as,omitempty"`
	Duration     time.Duration `json:"duration_ns"` // export, configure, compile and install of the build that made it
	Steps        int           `json:"steps"`       // ninja steps that build ran
	Compiled     int           `json:"compiled"`    // of which compilations
	LogPath      string        `json:"log"`         // that build's log
	BuiltAt      time.Time     `json:"built_at"`    // when it finished
	Cached       bool          `json:"-"`           // true when this call found it built and ran nothing
}

// doneMarker is the completion marker in an install prefix: the Artifact
// as JSON, written last, so a prefix without it is incomplete.
const doneMarker = ".perfbisect-build.json"

// readArtifact returns the artifact recorded in prefix, or nil when the
// prefix is absent or incomplete.
func readArtifact(prefix string) (*Artifact, error) {
	b, err := os.ReadFile(filepath.Join(prefix, doneMarker))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var a Artifact
	if err := json.Unmarshal(b, &a); err != nil {
		return nil, fmt.Errorf("reading build marker in %s: %w", prefix, err)
	}
	return &a, nil
}

// writeArtifact writes a's completion marker into dir.
func writeArtifact(dir string, a *Artifact) error {
	b, err := json.MarshalIndent(a, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, doneMarker), append(b, '\n'), 0o644)
}

// hashFile returns the hex sha256 of the file at path.
func hashFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// recordBinary registers tree as a holder of binary hash sum in index
// dir and returns the tree that registered it first ("" when tree is the
// first).
func recordBinary(dir, sum, tree string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	p := filepath.Join(dir, sum)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err == nil {
		_, err = f.WriteString(tree + "\n")
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return "", err
	}
	if !errors.Is(err, fs.ErrExist) {
		return "", err
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return "", err
	}
	first := strings.TrimSpace(string(b))
	if first == tree {
		return "", nil
	}
	return first, nil
}
