package build

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"regexp"
	"strings"
)

// A Recipe says how to configure, build and install one kind of project,
// and where its server binary lands in the install prefix. The Builder
// always uses the Ninja generator and sets CMAKE_INSTALL_PREFIX itself;
// everything project-specific lives here.
//
// The build step runs ninja's default target (all): `cmake --install`
// installs every installable target (for MariaDB the client tools,
// mariadb-install-db and share/ as well as mariadbd), and the runner needs
// mariadb-install-db and share/, so building only `mariadbd` first would
// save nothing (the notes measured install building the rest in 39 s).
type Recipe struct {
	// Name names the recipe in directory names and messages: letters,
	// digits, '.', '_' and '-'. Default "mariadb".
	Name string `json:"name"`
	// CMakeFlags are passed to cmake after `-G Ninja`; later -D flags win
	// over earlier ones, so appending a flag overrides the default.
	// Default: DefaultMariaDBFlags.
	CMakeFlags []string `json:"cmake_flags"`
	// Binary is the server binary's path inside the install prefix
	// (slash-separated, relative). Its sha256 is Artifact.BinaryHash.
	// Default "bin/mariadbd" (MariaDB's default STANDALONE layout).
	Binary string `json:"binary"`
	// SourceDir is the directory holding the top CMakeLists.txt, relative
	// to the tree's root. Default "" (the root).
	SourceDir string `json:"source_dir,omitempty"`
	// Env holds extra KEY=VALUE variables for cmake, ninja and the
	// compilers. Default none.
	Env []string `json:"env,omitempty"`
}

// DefaultMariaDBFlags is the lean configuration of
// docs/mariadb-build-notes.md: RelWithDebInfo, ccache launchers,
// system SSL, fmt and PCRE2 (so the build never downloads anything), and
// only what a point-select server needs: no unit tests, no embedded
// server, no Galera, no mariabackup, no dynamic plugins, and the optional
// engines and plugins switched off (CSV is mandatory in MariaDB, so it
// is not listed).
var DefaultMariaDBFlags = []string{
	"-DCMAKE_BUILD_TYPE=RelWithDebInfo",
	"-DCMAKE_C_COMPILER_LAUNCHER=ccache",
	"-DCMAKE_CXX_COMPILER_LAUNCHER=ccache",
	"-DWITH_UNIT_TESTS=OFF",
	"-DWITH_EMBEDDED_SERVER=OFF",
	"-DWITH_WSREP=OFF",
	"-DWITH_SSL=system",
	"-DWITH_LIBFMT=system",
	"-DWITH_PCRE=system",
	"-DWITHOUT_DYNAMIC_PLUGINS=ON",
	"-DWITH_MARIABACKUP=OFF",
	"-DCONC_WITH_UNITTEST=OFF",
	"-DPLUGIN_MROONGA=NO",
	"-DPLUGIN_ROCKSDB=NO",
	"-DPLUGIN_SPIDER=NO",
	"-DPLUGIN_CONNECT=NO",
	"-DPLUGIN_SPHINX=NO",
	"-DPLUGIN_OQGRAPH=NO",
	"-DPLUGIN_S3=NO",
	"-DPLUGIN_COLUMNSTORE=NO",
	"-DPLUGIN_TOKUDB=NO",
	"-DPLUGIN_FEDERATEDX=NO",
	"-DPLUGIN_ARCHIVE=NO",
	"-DPLUGIN_BLACKHOLE=NO",
	"-DPLUGIN_MYISAMMRG=NO",
	"-DPLUGIN_SEQUENCE=NO",
	"-DPLUGIN_PERFSCHEMA=NO",
	"-DPLUGIN_AUTH_GSSAPI=NO",
	"-DPLUGIN_AUTH_PAM=NO",
}

// DefaultRecipe returns the MariaDB recipe (a fresh copy each call).
func DefaultRecipe() Recipe {
	return Recipe{
		Name:       "mariadb",
		CMakeFlags: append([]string(nil), DefaultMariaDBFlags...),
		Binary:     "bin/mariadbd",
	}
}

// WithFlags returns a copy of r with flags appended to CMakeFlags (the
// `--cmake-flag` values of the CLI); a later -DX=... overrides an earlier.
func (r Recipe) WithFlags(flags ...string) Recipe {
	out := r.clone()
	out.CMakeFlags = append(out.CMakeFlags, flags...)
	return out
}

func (r Recipe) clone() Recipe {
	r.CMakeFlags = append([]string(nil), r.CMakeFlags...)
	r.Env = append([]string(nil), r.Env...)
	return r
}

var recipeName = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// Validate reports the first problem with r.
func (r Recipe) Validate() error {
	if !recipeName.MatchString(r.Name) {
		return fmt.Errorf("recipe name %q: want letters, digits, '.', '_' or '-'", r.Name)
	}
	for _, f := range r.CMakeFlags {
		switch {
		case strings.TrimSpace(f) == "":
			return fmt.Errorf("recipe %s: empty cmake flag", r.Name)
		case strings.HasPrefix(f, "-G"):
			return fmt.Errorf("recipe %s: cmake flag %q: the generator is always Ninja", r.Name, f)
		case strings.HasPrefix(f, "-DCMAKE_INSTALL_PREFIX"):
			return fmt.Errorf("recipe %s: cmake flag %q: the Builder sets the install prefix", r.Name, f)
		case f == "-S" || f == "-B" || strings.HasPrefix(f, "-S") || strings.HasPrefix(f, "-B"):
			return fmt.Errorf("recipe %s: cmake flag %q: the Builder sets the source and build directories", r.Name, f)
		}
	}
	if err := relPath("binary", r.Binary, false); err != nil {
		return fmt.Errorf("recipe %s: %w", r.Name, err)
	}
	if err := relPath("source_dir", r.SourceDir, true); err != nil {
		return fmt.Errorf("recipe %s: %w", r.Name, err)
	}
	for _, e := range r.Env {
		if k, _, ok := strings.Cut(e, "="); !ok || k == "" {
			return fmt.Errorf("recipe %s: env entry %q: want KEY=VALUE", r.Name, e)
		}
	}
	return nil
}

// relPath checks that p is a clean relative slash path inside its root.
func relPath(field, p string, emptyOK bool) error {
	if p == "" {
		if emptyOK {
			return nil
		}
		return fmt.Errorf("%s: empty", field)
	}
	if path.IsAbs(p) || path.Clean(p) != p || p == ".." || strings.HasPrefix(p, "../") {
		return fmt.Errorf("%s %q: want a clean relative path inside the tree", field, p)
	}
	return nil
}

// Hash returns the recipe's identity: the hex sha256 of what changes the
// build's output (flags, binary, source dir, env), not of its Name.
func (r Recipe) Hash() string {
	b, _ := json.Marshal(struct {
		CMakeFlags []string `json:"f"`
		Binary     string   `json:"b"`
		SourceDir  string   `json:"s"`
		Env        []string `json:"e"`
	}{r.CMakeFlags, r.Binary, r.SourceDir, r.Env})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Summary returns a one-line description for environment fingerprints
// and reports: "name@hash12: flag flag ...".
func (r Recipe) Summary() string {
	s := r.Name + "@" + r.Hash()[:hashLen] + ":"
	for _, f := range r.CMakeFlags {
		s += " " + f
	}
	for _, e := range r.Env {
		s += " env:" + e
	}
	return s
}

// A recipeFile is the JSON form LoadRecipe reads. Absent fields keep the
// base recipe's value; add_cmake_flags appends to the (possibly replaced)
// cmake_flags.
type recipeFile struct {
	Name          *string   `json:"name"`
	CMakeFlags    *[]string `json:"cmake_flags"`
	AddCMakeFlags []string  `json:"add_cmake_flags"`
	Binary        *string   `json:"binary"`
	SourceDir     *string   `json:"source_dir"`
	Env           *[]string `json:"env"`
}

// ParseRecipe reads a recipe file (JSON, see docs/real-build.md) over
// base: each field present replaces base's, "add_cmake_flags" appends to
// the flags. Unknown fields are an error. The result is validated.
func ParseRecipe(data []byte, base Recipe) (Recipe, error) {
	var f recipeFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return Recipe{}, fmt.Errorf("parsing recipe: %w", err)
	}
	if dec.More() {
		return Recipe{}, errors.New("parsing recipe: trailing data after the JSON object")
	}
	r := base.clone()
	if f.Name != nil {
		r.Name = *f.Name
	}
	if f.CMakeFlags != nil {
		r.CMakeFlags = append([]string(nil), *f.CMakeFlags...)
	}
	r.CMakeFlags = append(r.CMakeFlags, f.AddCMakeFlags...)
	if f.Binary != nil {
		r.Binary = *f.Binary
	}
	if f.SourceDir != nil {
		r.SourceDir = *f.SourceDir
	}
	if f.Env != nil {
		r.Env = append([]string(nil), *f.Env...)
	}
	if err := r.Validate(); err != nil {
		return Recipe{}, err
	}
	return r, nil
}

// LoadRecipe reads the recipe file at path over base (see ParseRecipe).
func LoadRecipe(path string, base Recipe) (Recipe, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Recipe{}, fmt.Errorf("reading recipe: %w", err)
	}
	r, err := ParseRecipe(b, base)
	if err != nil {
		return Recipe{}, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}
