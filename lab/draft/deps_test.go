package draft

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImportsLabOnly keeps the editor's rules out of the web: besides the
// standard library, the draft imports lab and nothing else.
func TestImportsLabOnly(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			first, _, _ := strings.Cut(path, "/")
			if path != "fencelab/lab" && (strings.Contains(first, ".") || first == "fencelab" || path == "C") {
				t.Errorf("%s imports %q: the draft imports only lab and the standard library", name, path)
			}
		}
	}
}
