// Package imports checks a package's imports against the table of
// docs/code.md ("What each package may import"), the one place the rules
// are written. Each package the table names has a test that calls Check:
//
//	func TestImports(t *testing.T) { imports.Check(t) }
//
// For tests only; it imports the standard library alone.
package imports

import (
	"errors"
	"fmt"
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

// Module is the module path: a path beneath it is one of ours.
const Module = "fencelab"

// Page is the page of the table, relative to the repository's root.
const Page = "docs/code.md"

// Rule is one row of the table: what the package in Dir may import.
type Rule struct {
	Dir   string // the package's directory, relative to the root: "lab/draft"
	Reach bool   // the rule holds for every package of ours it leads to, too
	Tests bool   // the rule holds for the package's test files, too
	Pure  bool   // its may-import names pure: no go statement, no time.Now either
	Why   string
	Cell  string // the may-import cell as written
	allow func(path string) bool
}

// Allows reports whether the rule lets the package import path.
func (r Rule) Allows(path string) bool { return r.allow(path) }

// Check fails t for every import of the calling package (the directory
// the test runs in) that its row of the table refuses, and for a pure
// package's go statements and reads of the clock. A package the table
// does not name fails: add its row, or drop the test.
func Check(t *testing.T) {
	t.Helper()
	t.Parallel()
	root, dir, err := where()
	if err != nil {
		t.Fatal(err)
	}
	rules, err := Read(root)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(rules, func(r Rule) bool { return r.Dir == dir })
	if i < 0 {
		t.Fatalf("%s has no import rule for %s: add its row to the table, or remove this test", Page, dir)
	}
	for _, p := range Problems(root, rules[i]) {
		t.Error(p)
	}
}

// Problems is every way the package of r breaks r, read from the sources
// beneath root.
func Problems(root string, r Rule) []string {
	var out []string
	seen, err := walk(root, r.Dir, r.Reach, r.Tests)
	if err != nil {
		return []string{err.Error()}
	}
	paths := make([]string, 0, len(seen))
	for p := range seen {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		if !r.Allows(p) {
			out = append(out, fmt.Sprintf("%s/%s imports %s (through %s); %s says it may import %s: %s",
				Module, r.Dir, p, seen[p], Page, r.Cell, r.Why))
		}
	}
	if r.Pure {
		files, err := parsed(root, r.Dir, 0, false)
		if err != nil {
			return append(out, err.Error())
		}
		for _, f := range files {
			ast.Inspect(f.file, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.GoStmt:
					out = append(out, f.name+" starts a goroutine: the package is pure")
				case *ast.SelectorExpr:
					if x, ok := n.X.(*ast.Ident); ok && x.Name == "time" && n.Sel.Name == "Now" {
						out = append(out, f.name+" reads the clock: the package is pure")
					}
				}
				return true
			})
		}
	}
	return out
}

// Read parses the table of Page beneath root.
func Read(root string) ([]Rule, error) {
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(Page)))
	if err != nil {
		return nil, err
	}
	rules, err := Parse(string(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Page, err)
	}
	return rules, nil
}

// Parse reads the two tables of a page: the words (| word | stands for |
// why |) and the rules (| package | may import | why |).
func Parse(page string) ([]Rule, error) {
	words := map[string]func(string) bool{"std": isStd, "anything": func(string) bool { return true }}
	var rules []Rule
	var table string
	for n, line := range strings.Split(page, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") {
			table = ""
			continue
		}
		cells := cellsOf(line)
		switch {
		case table == "" && len(cells) == 3 && cells[0] == "word" && cells[1] == "stands for":
			table = "words"
			continue
		case table == "" && len(cells) == 3 && cells[0] == "package" && cells[1] == "may import":
			table = "rules"
			continue
		case table == "" || strings.Trim(line, "|-: ") == "":
			continue
		}
		if len(cells) != 3 {
			return nil, fmt.Errorf("line %d: %d cells, want 3: %s", n+1, len(cells), line)
		}
		allow, pure, err := expr(cells[1], words)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n+1, err)
		}
		if table == "words" {
			if _, dup := words[cells[0]]; dup || strings.ContainsAny(cells[0], "` ,") || cells[0] == "" {
				return nil, fmt.Errorf("line %d: %q cannot be defined: a word is one plain word, defined once", n+1, cells[0])
			}
			words[cells[0]] = allow
			continue
		}
		r, err := ruleOf(cells[0])
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n+1, err)
		}
		if slices.ContainsFunc(rules, func(o Rule) bool { return o.Dir == r.Dir }) {
			return nil, fmt.Errorf("line %d: a second rule for %s", n+1, r.Dir)
		}
		r.Pure, r.Why, r.Cell, r.allow = pure, cells[2], cells[1], allow
		rules = append(rules, r)
	}
	if len(rules) == 0 {
		return nil, errors.New(`no table of rules (a header "| package | may import | why |")`)
	}
	return rules, nil
}

// ruleOf reads a package cell: `dir`, then nothing, "and what it imports"
// or "with its tests, and what they import".
func ruleOf(cell string) (Rule, error) {
	dir, rest, ok := codeSpan(cell)
	if !ok || dir == "" {
		return Rule{}, fmt.Errorf("package %q: want a directory in backticks", cell)
	}
	switch strings.TrimSpace(rest) {
	case "":
		return Rule{Dir: dir}, nil
	case "and what it imports":
		return Rule{Dir: dir, Reach: true}, nil
	case "with its tests, and what they import":
		return Rule{Dir: dir, Reach: true, Tests: true}, nil
	}
	return Rule{}, fmt.Errorf(`package %q: after the directory, want nothing, `+
		`"and what it imports" or "with its tests, and what they import"`, cell)
}

// expr reads a may-import cell: a list of terms, then optionally "but" and
// the list of terms refused. A term is a word or a path in backticks; a
// path ending in … is every path it begins. pure reports whether the list
// allowed names the word pure.
func expr(cell string, words map[string]func(string) bool) (allow func(string) bool, pure bool, err error) {
	yes, no, _ := strings.Cut(cell, " but ")
	if strings.TrimSpace(yes) == "" {
		return nil, false, fmt.Errorf("%q allows nothing", cell)
	}
	in, err := terms(yes, words)
	if err != nil {
		return nil, false, err
	}
	var out func(string) bool = func(string) bool { return false }
	if no != "" {
		if out, err = terms(no, words); err != nil {
			return nil, false, err
		}
	}
	for _, w := range strings.Split(yes, ",") {
		pure = pure || strings.TrimSpace(w) == "pure"
	}
	return func(p string) bool { return in(p) && !out(p) }, pure, nil
}

// terms reads a comma-separated list of words and paths as the set of
// paths any of them stands for.
func terms(list string, words map[string]func(string) bool) (func(string) bool, error) {
	var sets []func(string) bool
	for _, term := range strings.Split(list, ",") {
		term = strings.TrimSpace(term)
		if path, rest, ok := codeSpan(term); ok && rest == "" && path != "" {
			if prefix, ok := strings.CutSuffix(path, "…"); ok {
				sets = append(sets, func(p string) bool { return strings.HasPrefix(p, prefix) })
			} else {
				sets = append(sets, func(p string) bool { return p == path })
			}
			continue
		}
		set, ok := words[term]
		if !ok {
			return nil, fmt.Errorf("%q: %q is neither a path in backticks nor a word of the table", list, term)
		}
		sets = append(sets, set)
	}
	return func(p string) bool { return slices.ContainsFunc(sets, func(s func(string) bool) bool { return s(p) }) }, nil
}

// codeSpan splits "`x` rest" into x and rest.
func codeSpan(s string) (span, rest string, ok bool) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "`") {
		return "", s, false
	}
	end := strings.IndexByte(s[1:], '`')
	if end < 0 {
		return "", s, false
	}
	return s[1 : 1+end], s[2+end:], true
}

func cellsOf(line string) []string {
	line = strings.TrimSuffix(strings.TrimPrefix(line, "|"), "|")
	cells := strings.Split(line, "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

// where finds the repository's root (the directory of go.mod) above the
// working directory, and the working directory's path beneath it.
func where() (root, dir string, err error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", "", err
	}
	for root = wd; ; root = filepath.Dir(root) {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			break
		}
		if filepath.Dir(root) == root {
			return "", "", fmt.Errorf("no go.mod above %s", wd)
		}
	}
	rel, err := filepath.Rel(root, wd)
	return root, filepath.ToSlash(rel), err
}

// walk is every import of dir's non-test files (and its test files with
// tests) and, with reach, of the packages of ours they lead to, each with
// the package that imports it.
func walk(root, dir string, reach, tests bool) (map[string]string, error) {
	seen := map[string]string{}
	queue := []string{dir}
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		files, err := parsed(root, d, parser.ImportsOnly, tests && d == dir)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			for _, imp := range f.file.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if _, ok := seen[path]; ok {
					continue
				}
				seen[path] = Module + "/" + d
				if rest, ok := strings.CutPrefix(path, Module+"/"); ok && reach {
					queue = append(queue, rest)
				}
			}
		}
	}
	return seen, nil
}

type parsedFile struct {
	name string
	file *ast.File
}

// parsed reads the non-test Go files of the package in dir beneath root,
// and its test files too when tests is true.
func parsed(root, dir string, mode parser.Mode, tests bool) ([]parsedFile, error) {
	names, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(dir), "*.go"))
	if err != nil || len(names) == 0 {
		return nil, fmt.Errorf("no Go files in %s (err %v)", dir, err)
	}
	var out []parsedFile
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") && !tests {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, src, mode)
		if err != nil {
			return nil, err
		}
		rel, _ := filepath.Rel(root, name)
		out = append(out, parsedFile{filepath.ToSlash(rel), f})
	}
	return out, nil
}

// isStd reports whether path is a standard library package: its first
// element has no dot, and it is not the module's own.
func isStd(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".") && first != Module && path != "C"
}
