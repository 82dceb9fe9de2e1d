package docs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// impure are the standard packages that bring a clock, randomness,
// goroutines' locks or I/O beyond the readers a pure package is given.
var impure = []string{"time", "math/rand", "math/rand/v2", "crypto/rand", "os", "net", "net/http",
	"sync", "unsafe", "os/exec"}

// isWeb reports whether path makes a package part of the pages or the
// server (Echo, templ, the pages, the static files, the web package): a
// package that must build without them reaches none.
func isWeb(path string) bool {
	return path == "fencelab/server" || path == "fencelab/views" || path == "fencelab/static" ||
		hasPrefix(path, []string{"github.com/labstack/", "github.com/a-h/templ"})
}

// importRule is what one package may import, as code.md says. A rule with
// reach applies to every fencelab package it imports, and theirs.
type importRule struct {
	pkg   string
	reach bool
	why   string
	ok    func(path string) bool
}

// importRules is the import graph of code.md ("what each may import").
var importRules = []importRule{
	{"lab", false, "the engine imports only the standard library, without clock, randomness or I/O",
		func(p string) bool { return isStd(p) && !slices.Contains(impure, p) }},
	{"lab/draft", false, "the editor's draft imports only lab and the standard library",
		func(p string) bool { return isStd(p) || p == "fencelab/lab" }},
	{"lab/logs", false, "the import reads only the readers it is given: lab and the standard library, no clock",
		func(p string) bool {
			return p == "fencelab/lab" || isStd(p) && (p == "time" || !slices.Contains(impure, p))
		}},
	{"lab/probe/issuer", false, "the issuer checker judges only the history it is given: lab and the pure standard library",
		func(p string) bool { return p == "fencelab/lab" || isStd(p) && !slices.Contains(impure, p) }},
	{"scenarios", false, "the built-ins are a leaf: embed only", func(p string) bool { return p == "embed" }},
	{"static", false, "the static files are a leaf: embed and what serves them",
		func(p string) bool { return isStd(p) }},
	{"views", false, "the pages never import the server or a database driver",
		func(p string) bool { return !strings.HasPrefix(p, "fencelab/server") && !hasPrefix(p, drivers) }},
	{"views/diagram", true, "the diagram builds without the pages", func(p string) bool { return !isWeb(p) }},
	{"views/export", true, "the exports build without the pages", func(p string) bool { return !isWeb(p) }},
	{"views/class", false, "the classes' table, read alike by the pages, the exports and the diagram: lab and the standard library only",
		func(p string) bool { return isStd(p) || p == "fencelab/lab" }},
	{"views/wrap", false, "line counting is a leaf: the standard library only", isStd},
	{"views/htmltest", false, "the tests' page reader: the standard library and the HTML parser",
		func(p string) bool { return isStd(p) || p == "golang.org/x/net/html" }},
	{"server", false, "the server imports the store's types, never an adapter",
		func(p string) bool { return !strings.HasPrefix(p, "fencelab/server/store/") && !hasPrefix(p, drivers) }},
	{"server/internal/lru", false, "the server's cache imports only the standard library",
		func(p string) bool { return isStd(p) }},
	{"server/store", true, "the store imports nothing of the web", func(p string) bool { return !isWeb(p) }},
	{"server/store/sqlite", true, "an adapter imports nothing of the web", func(p string) bool { return !isWeb(p) }},
	{"server/store/postgres", true, "an adapter imports nothing of the web", func(p string) bool { return !isWeb(p) }},
	{"server/store/storetest", true, "the contract suite imports nothing of the web", func(p string) bool { return !isWeb(p) }},
}

var drivers = []string{"github.com/mattn/go-sqlite3", "github.com/jackc/pgx", "github.com/go-sql-driver/mysql"}

// TestImportRules checks the import graph code.md describes, one rule a
// package: the non-test files of each, and with reach every fencelab
// package they lead to. Tests may import more: they wire what they check.
func TestImportRules(t *testing.T) {
	t.Parallel()
	for _, r := range importRules {
		for path, via := range reached(t, r.pkg, r.reach) {
			if !r.ok(path) {
				t.Errorf("fencelab/%s imports %s (through %s): %s", r.pkg, path, via, r.why)
			}
		}
	}
}

// TestPureSources: the pure packages neither read the clock nor start a
// goroutine, which their imports alone would not show.
func TestPureSources(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{"lab", "lab/draft", "lab/logs"} {
		for _, f := range parsed(t, dir, 0, false) {
			ast.Inspect(f.file, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.GoStmt:
					t.Errorf("%s starts a goroutine: the package is pure", f.name)
				case *ast.SelectorExpr:
					if x, ok := n.X.(*ast.Ident); ok && x.Name == "time" && n.Sel.Name == "Now" {
						t.Errorf("%s reads the clock: the package is pure", f.name)
					}
				}
				return true
			})
		}
	}
}

// TestStoreTestsLeaveTheEngineOut: the store adapters' tests, with the
// contract suite, reach neither the engine nor the server, so that a change
// in lab or server leaves their test binaries (SQLite through cgo, the
// slowest to link) and results in the cache: the inner loop stays short.
// What the server answers over a broken store is the server's own test.
func TestStoreTestsLeaveTheEngineOut(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{"server/store/sqlite", "server/store/postgres"} {
		for path, via := range reachedFrom(t, dir, true) {
			if strings.HasPrefix(path, "fencelab/lab") || path == "fencelab/scenarios" || strings.HasPrefix(path, "fencelab/views") ||
				path == "fencelab/server" {
				t.Errorf("the tests of fencelab/%s reach %s (through %s); want only the store packages", dir, path, via)
			}
		}
	}
}

// TestImportRulesCanFail feeds the rules imports they must refuse.
func TestImportRulesCanFail(t *testing.T) {
	t.Parallel()
	bad := map[string]string{"lab": "net/http", "lab/draft": "fencelab/views", "lab/logs": "os",
		"scenarios": "fencelab/lab", "views": "fencelab/server/store", "views/diagram": "github.com/a-h/templ",
		"views/class": "fencelab/views/export",
		"server":      "fencelab/server/store/sqlite", "server/store/sqlite": "github.com/labstack/echo/v4"}
	for _, r := range importRules {
		if p, ok := bad[r.pkg]; ok && r.ok(p) {
			t.Errorf("the rule of %s lets %s in", r.pkg, p)
		}
	}
}

// reached is every import of dir's non-test files and, with reach, of the
// fencelab packages they lead to, each with the package that imports it.
func reached(t *testing.T, dir string, reach bool) map[string]string {
	t.Helper()
	return walk(t, dir, reach, false)
}

// reachedFrom is reached with dir's test files too: what its test binary
// compiles of fencelab (test files of the packages reached are not in it).
func reachedFrom(t *testing.T, dir string, reach bool) map[string]string {
	t.Helper()
	return walk(t, dir, reach, true)
}

func walk(t *testing.T, dir string, reach, tests bool) map[string]string {
	t.Helper()
	seen := map[string]string{}
	queue := []string{dir}
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		for _, f := range parsed(t, d, parser.ImportsOnly, tests && d == dir) {
			for _, imp := range f.file.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if _, ok := seen[path]; ok {
					continue
				}
				seen[path] = "fencelab/" + d
				if rest, ok := strings.CutPrefix(path, "fencelab/"); ok && reach {
					queue = append(queue, rest)
				}
			}
		}
	}
	return seen
}

type parsedFile struct {
	name string
	file *ast.File
}

// parsed reads the non-test Go files of a package directory, relative to
// the repository's root, and its test files too when tests is true.
func parsed(t *testing.T, dir string, mode parser.Mode, tests bool) []parsedFile {
	t.Helper()
	names, err := filepath.Glob(filepath.Join("..", filepath.FromSlash(dir), "*.go"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no Go files in %s (err %v)", dir, err)
	}
	var out []parsedFile
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") && !tests {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, src, mode)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, parsedFile{name, f})
	}
	return out
}

// isStd reports whether path is a standard library package: its first
// element has no dot, and it is not the module's own.
func isStd(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".") && first != "fencelab" && path != "C"
}

func hasPrefix(s string, prefixes []string) bool {
	return slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(s, p) })
}
