package store

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNoWebImports keeps the store and its adapters free of the web: none
// of their files, nor any fencelab package they reach, imports Echo,
// templ, the pages or the server, so that an adapter builds (and its
// contract runs) without them. Test files may: they wire a server to
// check what a broken database looks like from outside.
func TestNoWebImports(t *testing.T) {
	t.Parallel()
	forbidden := []string{"github.com/labstack/", "github.com/a-h/templ", "fencelab/views", "fencelab/static"}
	for _, pkg := range []string{"fencelab/server/store", "fencelab/server/store/sqlite",
		"fencelab/server/store/postgres", "fencelab/server/store/storetest"} {
		for path, via := range reach(t, pkg) {
			if path == "fencelab/server" || hasAnyPrefix(path, forbidden) {
				t.Errorf("%s reaches %s (through %s): the store packages import nothing of the web", pkg, path, via)
			}
		}
	}
}

// reach is every import of pkg's non-test files and, through fencelab
// packages, theirs, each with the fencelab package that imports it.
func reach(t *testing.T, pkg string) map[string]string {
	t.Helper()
	seen := map[string]string{}
	queue := []string{pkg}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, imp := range imports(t, p) {
			if _, ok := seen[imp]; ok {
				continue
			}
			seen[imp] = p
			if strings.HasPrefix(imp, "fencelab/") {
				queue = append(queue, imp)
			}
		}
	}
	return seen
}

// imports lists the imports of a fencelab package's non-test files, read
// from its directory relative to this one (server/store).
func imports(t *testing.T, pkg string) []string {
	t.Helper()
	dir := filepath.Join("..", "..", filepath.FromSlash(strings.TrimPrefix(pkg, "fencelab/")))
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files for %s in %s (err %v)", pkg, dir, err)
	}
	var out []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			out = append(out, path)
		}
	}
	return out
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
