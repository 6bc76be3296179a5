package build

import (
	"slices"
	"strings"
	"testing"
)

func TestRecipeValidate(t *testing.T) {
	good := toyRecipe()
	tests := []struct {
		name    string
		edit    func(*Recipe)
		wantErr string // "" for valid
	}{
		{"toy", func(*Recipe) {}, ""},
		{"default", func(r *Recipe) { *r = DefaultRecipe() }, ""},
		{"bad name", func(r *Recipe) { r.Name = "a b" }, "recipe name"},
		{"empty name", func(r *Recipe) { r.Name = "" }, "recipe name"},
		{"generator", func(r *Recipe) { r.CMakeFlags = append(r.CMakeFlags, "-GUnix Makefiles") }, "generator"},
		{"prefix", func(r *Recipe) { r.CMakeFlags = append(r.CMakeFlags, "-DCMAKE_INSTALL_PREFIX=/usr") }, "install prefix"},
		{"build dir", func(r *Recipe) { r.CMakeFlags = append(r.CMakeFlags, "-B/tmp/x") }, "build directories"},
		{"empty flag", func(r *Recipe) { r.CMakeFlags = append(r.CMakeFlags, " ") }, "empty cmake flag"},
		{"no binary", func(r *Recipe) { r.Binary = "" }, "binary"},
		{"absolute binary", func(r *Recipe) { r.Binary = "/usr/sbin/mariadbd" }, "binary"},
		{"escaping binary", func(r *Recipe) { r.Binary = "../bin/mariadbd" }, "binary"},
		{"unclean source dir", func(r *Recipe) { r.SourceDir = "a//b" }, "source_dir"},
		{"source dir", func(r *Recipe) { r.SourceDir = "server" }, ""},
		{"bad env", func(r *Recipe) { r.Env = []string{"NOEQUALS"} }, "KEY=VALUE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := good.clone()
			tt.edit(&r)
			err := r.Validate()
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("Validate() = %v, want error containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestRecipeHash(t *testing.T) {
	base := DefaultRecipe()
	renamed := base.clone()
	renamed.Name = "other"
	if base.Hash() != renamed.Hash() {
		t.Error("the name changed the recipe hash")
	}
	if base.Hash() == base.WithFlags("-DWITH_ASAN=ON").Hash() {
		t.Error("an extra flag left the recipe hash unchanged")
	}
	if base.Hash() != DefaultRecipe().Hash() || len(base.Hash()) != 64 {
		t.Errorf("hash %q is not a stable sha256", base.Hash())
	}
	if got := toyRecipe("A=1").Summary(); !strings.HasPrefix(got, "toy@"+toyRecipe("A=1").Hash()[:12]+": -DCMAKE_BUILD_TYPE=RelWithDebInfo") || !strings.HasSuffix(got, " env:A=1") {
		t.Errorf("Summary() = %q", got)
	}
	if w := base.WithFlags("-DX=1"); len(base.CMakeFlags) != len(DefaultMariaDBFlags) || w.CMakeFlags[len(w.CMakeFlags)-1] != "-DX=1" {
		t.Error("WithFlags did not append to a copy")
	}
}

func TestParseRecipe(t *testing.T) {
	def := DefaultRecipe()
	tests := []struct {
		name      string
		file      string
		wantErr   string
		wantName  string
		wantFlags []string // nil: unchanged from the default
		wantBin   string
	}{
		{name: "empty object", file: `{}`, wantName: "mariadb", wantBin: "bin/mariadbd"},
		{name: "add flags", file: `{"add_cmake_flags": ["-DPLUGIN_PERFSCHEMA=YES"]}`, wantName: "mariadb", wantBin: "bin/mariadbd",
			wantFlags: append(slices.Clone(def.CMakeFlags), "-DPLUGIN_PERFSCHEMA=YES")},
		{name: "replace", file: `{"name": "old", "cmake_flags": ["-DCMAKE_BUILD_TYPE=Release"], "add_cmake_flags": ["-DX=1"], "binary": "bin/mysqld"}`,
			wantName: "old", wantBin: "bin/mysqld", wantFlags: []string{"-DCMAKE_BUILD_TYPE=Release", "-DX=1"}},
		{name: "unknown field", file: `{"flags": []}`, wantErr: "unknown field"},
		{name: "invalid", file: `{"binary": "/abs"}`, wantErr: "binary"},
		{name: "trailing", file: `{} {}`, wantErr: "trailing"},
		{name: "not json", file: `name=x`, wantErr: "parsing recipe"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := ParseRecipe([]byte(tt.file), def)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseRecipe = %v, want error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := tt.wantFlags
			if want == nil {
				want = def.CMakeFlags
			}
			if r.Name != tt.wantName || r.Binary != tt.wantBin || !slices.Equal(r.CMakeFlags, want) {
				t.Errorf("got %+v, want name %q binary %q flags %q", r, tt.wantName, tt.wantBin, want)
			}
		})
	}
	if !slices.Equal(def.CMakeFlags, DefaultMariaDBFlags) {
		t.Error("ParseRecipe modified its base")
	}
}
