package build

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// lockPoll is how often LockFile retries a lock held by another process.
const lockPoll = 200 * time.Millisecond

// lockDir takes an exclusive flock on dir/lock, waiting (until ctx ends)
// while another process holds it, and returns its release. Builds of one
// recipe share a source and a build directory, so they take turns.
func lockDir(ctx context.Context, dir string) (func(), error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return LockFile(ctx, filepath.Join(dir, "lock"), "another build in "+dir)
}

// LockFile takes an exclusive flock on the file at path (created if
// missing), waiting while another process holds it until ctx ends, and
// returns its release. what names the holder in the error of a wait cut
// short ("waiting for <what>: context canceled"). The kernel drops the
// lock when the process dies, so a crashed holder never blocks anyone.
func LockFile(ctx context.Context, path, what string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() {
				_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
				f.Close()
			}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("waiting for %s: %w", what, ctx.Err())
		case <-time.After(lockPoll):
		}
	}
}
