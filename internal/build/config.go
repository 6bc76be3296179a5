package build

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// A Config places the Builder's files and tunes its child processes.
// Start from DefaultConfig.
type Config struct {
	// CacheDir holds work directories, install prefixes, logs and the
	// binary index (see the package doc). Default
	// os.UserCacheDir()/perfbisect.
	CacheDir string
	// CcacheDir is CCACHE_DIR for every compiler run. Default
	// CacheDir/ccache.
	CcacheDir string
	// CcacheMaxSize is CCACHE_MAXSIZE (e.g. "20G"); "" keeps ccache's
	// own setting (5 GB unless configured). Default "".
	CcacheMaxSize string
	// Jobs is ninja's -j; 0 lets ninja choose (cores + 2). Default 0.
	Jobs int
	// CMake and Ninja are the programs run. Default "cmake" and "ninja",
	// looked up in PATH.
	CMake, Ninja string
	// WaitDelay bounds how long a cancelled cmake or ninja may take to
	// stop after SIGTERM (ninja forwards it to its compilers and waits
	// for them) before it is killed. Default 30s.
	WaitDelay time.Duration
}

// DefaultConfig returns the defaults, with CacheDir under the user's
// cache directory.
func DefaultConfig() (Config, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return Config{}, fmt.Errorf("finding the cache directory: %w", err)
	}
	return Config{
		CacheDir:  filepath.Join(base, "perfbisect"),
		CMake:     "cmake",
		Ninja:     "ninja",
		WaitDelay: 30 * time.Second,
	}.withDefaults(), nil
}

// withDefaults fills the derived defaults of empty fields.
func (c Config) withDefaults() Config {
	if c.CcacheDir == "" && c.CacheDir != "" {
		c.CcacheDir = filepath.Join(c.CacheDir, "ccache")
	}
	c.CMake = cmp.Or(c.CMake, "cmake")
	c.Ninja = cmp.Or(c.Ninja, "ninja")
	c.WaitDelay = cmp.Or(c.WaitDelay, 30*time.Second)
	return c
}

// Validate reports the first problem with c (after defaults are filled).
func (c Config) Validate() error {
	c = c.withDefaults()
	switch {
	case c.CacheDir == "":
		return errors.New("build config: empty cache directory")
	case !filepath.IsAbs(c.CacheDir):
		return fmt.Errorf("build config: cache directory %q is not absolute", c.CacheDir)
	case !filepath.IsAbs(c.CcacheDir):
		return fmt.Errorf("build config: ccache directory %q is not absolute", c.CcacheDir)
	case c.Jobs < 0:
		return fmt.Errorf("build config: jobs %d < 0", c.Jobs)
	case c.WaitDelay < 0:
		return fmt.Errorf("build config: wait delay %v < 0", c.WaitDelay)
	}
	return nil
}
