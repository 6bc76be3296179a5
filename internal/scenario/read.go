package scenario

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/perfbisect/perfbisect/internal/repo"
)

// KnobsAt returns the knobs of a materialised commit (the files under
// knobs/ of its tree): key -> value. A commit without knobs gives an
// empty map. Parse the result with ahi.ParseKnobs.
func KnobsAt(ctx context.Context, r *repo.Repo, rev string) (map[string]string, error) {
	files, err := r.ReadDir(ctx, rev, KnobDir)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading knobs at %s: %w", rev, err)
	}
	out := make(map[string]string, len(files))
	for k, v := range files {
		out[k] = strings.TrimSpace(string(v))
	}
	return out, nil
}

// KnobsInDir returns the knobs of a tree exported into dir (see
// repo.Export), for a builder that only has the work directory.
func KnobsInDir(dir string) (map[string]string, error) {
	ents, err := os.ReadDir(filepath.Join(dir, KnobDir))
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading knobs in %s: %w", dir, err)
	}
	out := make(map[string]string, len(ents))
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, KnobDir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("reading knob %s in %s: %w", e.Name(), dir, err)
		}
		out[e.Name()] = strings.TrimSpace(string(b))
	}
	return out, nil
}

// HeaderAt returns the scenario header (name, noise, workload) stored in
// a materialised repository at rev.
func HeaderAt(ctx context.Context, r *repo.Repo, rev string) (Header, error) {
	b, err := r.ReadFile(ctx, rev, HeaderFile)
	if err != nil {
		return Header{}, fmt.Errorf("%s is not a materialised scenario: %w", rev, err)
	}
	var h Header
	if err := json.Unmarshal(b, &h); err != nil {
		return Header{}, fmt.Errorf("reading %s at %s: %w", HeaderFile, rev, err)
	}
	return h, nil
}

// IDFromMessage returns the scenario ID recorded in a materialised
// commit's message (the Scenario-Id trailer), or "".
func IDFromMessage(msg string) string {
	for _, line := range strings.Split(msg, "\n") {
		if v, ok := strings.CutPrefix(line, IDTrailer+": "); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
