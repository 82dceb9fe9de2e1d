package diagram

import (
	"go/parser"
	gotoken "go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImportsNoPages keeps the package usable without the pages: no
// templ, no web framework and nothing of package views, so the CLI and
// the server's exports build without them.
func TestImportsNoPages(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := gotoken.NewFileSet()
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
			if strings.Contains(path, "templ") || strings.Contains(path, "labstack") || path == "fencelab/views" || strings.HasPrefix(path, "fencelab/server") {
				t.Errorf("%s imports %q: the package must build without the pages", name, path)
			}
		}
	}
}
