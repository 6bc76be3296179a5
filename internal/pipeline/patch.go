package pipeline

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/perfbisect/perfbisect/internal/bisect"
	"github.com/perfbisect/perfbisect/internal/build"
	"github.com/perfbisect/perfbisect/internal/store"
	"github.com/perfbisect/perfbisect/internal/ui"
)

// OpenPatched opens the real target of spec for a patch trial: every
// commit it measures is built with patch applied in the builder's export
// (never in the clone). patch is a patch file or a commit of the clone
// (its diff against its parent, a cherry-pick). The patched builds are
// their own trees for the builder and the store, and the target's
// workload carries the patch's hash, so patched runs never mix with the
// plain commit's.
func OpenPatched(ctx context.Context, s *store.Store, spec Spec, patch string, io *ui.IO) (*Target, error) {
	if spec.DryRun {
		return nil, fmt.Errorf("--patch needs real builds: the model has no sources to patch (drop --dry-run)")
	}
	t, err := Open(ctx, s, spec, io)
	if err != nil {
		return nil, err
	}
	p, err := build.LoadPatch(ctx, t.Repo, patch)
	if err != nil {
		t.Close()
		return nil, err
	}
	var builds *BuildSampler
	switch smp := t.sampler.(type) {
	case *BuildSampler:
		builds = smp
	case *DropStallSampler:
		builds = smp.Builds
	case *InstructionsSampler:
		builds = smp.Builds
	default:
		t.Close()
		return nil, fmt.Errorf("--patch: the %s sampler cannot build patched trees", t.Workload.Name)
	}
	builds.Patch = &p
	if t.Workload, err = patchWorkload(t.Workload, p); err != nil {
		t.Close()
		return nil, err
	}
	t.patch = &p
	return t, nil
}

// patchWorkload is w for builds with patch p: its configuration holds the
// patch's name and hash, so its ConfigHash differs from w's.
func patchWorkload(w Workload, p build.Patch) (Workload, error) {
	cfg := struct {
		Base      json.RawMessage `json:"base"`
		Patch     string          `json:"patch"`
		PatchName string          `json:"patch_name"`
	}{w.Config, p.Hash, p.Name}
	pw, err := newWorkload(w.Name, cfg)
	if err != nil {
		return w, err
	}
	pw.Metric, pw.Environment = w.Metric, w.Environment
	return pw, nil
}

// checkPatch fails with one line naming the patch when the target's
// patch does not apply to commit c (revision rev); nil without a patch.
func (t *Target) checkPatch(ctx context.Context, rev string, c bisect.Commit) error {
	if t.patch == nil {
		return nil
	}
	return t.patch.Check(ctx, t.Repo, c.Short)
}
