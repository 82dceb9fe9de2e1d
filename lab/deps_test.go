package lab

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImportsStandardLibraryOnly keeps the engine pure: no module outside
// the standard library, and none of the packages that bring a clock,
// randomness or I/O beyond the reader Parse is given.
func TestImportsStandardLibraryOnly(t *testing.T) {
	t.Parallel()
	forbidden := map[string]bool{"time": true, "math/rand": true, "math/rand/v2": true, "crypto/rand": true,
		"os": true, "net": true, "net/http": true, "sync": true, "unsafe": true, "os/exec": true}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if first, _, _ := strings.Cut(path, "/"); strings.Contains(first, ".") || first == "fencelab" || path == "C" {
				t.Errorf("%s imports %q, outside the standard library", name, path)
			}
			if forbidden[path] {
				t.Errorf("%s imports %q: the engine has no clock, randomness, goroutines or I/O", name, path)
			}
		}
	}
}
