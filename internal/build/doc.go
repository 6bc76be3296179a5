// Package build turns a source tree into an installed server: a Builder
// runs a Recipe (cmake with the Ninja generator, ccache launchers, a
// persistent ccache directory) in ONE persistent build directory per
// recipe, so consecutive commits rebuild only what changed, and installs
// every tree into its own prefix under the cache directory.
//
// Layout under Config.CacheDir (default os.UserCacheDir()/perfbisect):
//
//	ccache/                             CCACHE_DIR (Config.CcacheDir)
//	work/<name>-<recipe>/src/           the exported source tree (incremental)
//	work/<name>-<recipe>/build/         the persistent cmake/ninja build directory
//	work/<name>-<recipe>/lock           serialises builders of that recipe
//	installs/<tree>-<recipe>/           one install prefix per tree
//	installs/<tree>-<recipe>/.perfbisect-build.json   completion marker (the Artifact)
//	logs/<tree>-<recipe>.log            the log of the last build of that tree
//	binaries/<recipe>/<sha256>          first tree whose server binary had that hash
//
// The same tree (tree hash and recipe hash) is never built twice: a prefix
// with its completion marker is a cache hit. A build whose server binary
// is byte-identical to an earlier one says so in Artifact.SameBinaryAs,
// so the caller can reuse that build's measurements. A failing configure,
// compile or install returns an *Error that matches ErrUnbuildable and
// carries the log path and its last lines; the log is kept.
//
// Why `cmake --install --prefix` rather than configuring each tree with
// its own CMAKE_INSTALL_PREFIX: MariaDB compiles the configure-time prefix
// into config.h, so a prefix per tree at configure time would recompile
// everything. The build is configured once with a fixed prefix (inside the
// work directory, never written) and each tree is installed with the
// prefix overridden at install time. MariaDB finds its share and plugin
// directories relative to --basedir, which the runner passes.
package build
