package logs

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImports keeps the import pure: the standard library and lab only,
// no clock, randomness, goroutines or I/O beyond the readers it is given.
func TestImports(t *testing.T) {
	forbidden := map[string]bool{"math/rand": true, "math/rand/v2": true, "crypto/rand": true,
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
		if strings.Contains(string(src), "time.Now") || strings.Contains(string(src), "go func") {
			t.Errorf("%s reads the clock or starts a goroutine", name)
		}
		f, err := parser.ParseFile(fset, name, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			first, _, _ := strings.Cut(path, "/")
			if path != "fencelab/lab" && (strings.Contains(first, ".") || first == "fencelab") || forbidden[path] {
				t.Errorf("%s imports %q: only the standard library and fencelab/lab, without clock, randomness or I/O", name, path)
			}
		}
	}
}
