package imports

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestImports holds the checker to its own row.
func TestImports(t *testing.T) { Check(t) }

func rules(t *testing.T) (string, []Rule) {
	t.Helper()
	root, _, err := where()
	if err != nil {
		t.Fatal(err)
	}
	rules, err := Read(root)
	if err != nil {
		t.Fatal(err)
	}
	return root, rules
}

// TestRulesCanFail feeds the rules of code.md imports they must refuse,
// and some they must let in.
func TestRulesCanFail(t *testing.T) {
	t.Parallel()
	_, rules := rules(t)
	bad := map[string][]string{
		"lab":                 {"net/http", "time", "sync", "fencelab/views", "github.com/a-h/templ"},
		"lab/draft":           {"fencelab/views", "os"},
		"lab/logs":            {"os", "fencelab/lab/probe"},
		"lab/probe/issuer":    {"time", "fencelab/lab/probe/issuer/live"},
		"scenarios":           {"fencelab/lab", "fmt"},
		"views":               {"fencelab/server/store", "fencelab/server", "github.com/mattn/go-sqlite3"},
		"views/diagram":       {"github.com/a-h/templ", "fencelab/views", "github.com/labstack/echo/v4"},
		"server":              {"fencelab/server/store/sqlite", "github.com/jackc/pgx/v5"},
		"server/store/sqlite": {"github.com/labstack/echo/v4", "fencelab/lab", "fencelab/scenarios", "fencelab/views/export"},
		"server/store":        {"fencelab/server", "fencelab/static"},
	}
	good := map[string][]string{
		"lab":                 {"strings", "encoding/json", "math/big"},
		"lab/logs":            {"time", "fencelab/lab"},
		"views":               {"fencelab/lab", "github.com/a-h/templ"},
		"views/diagram":       {"fencelab/lab", "image/png"},
		"server":              {"fencelab/server/store", "github.com/labstack/echo/v4"},
		"server/store/sqlite": {"fencelab/server/store", "github.com/mattn/go-sqlite3"},
	}
	for _, r := range rules {
		for _, p := range bad[r.Dir] {
			if r.Allows(p) {
				t.Errorf("the rule of %s (%s) lets %s in", r.Dir, r.Cell, p)
			}
		}
		for _, p := range good[r.Dir] {
			if !r.Allows(p) {
				t.Errorf("the rule of %s (%s) keeps %s out", r.Dir, r.Cell, p)
			}
		}
		delete(bad, r.Dir)
		delete(good, r.Dir)
	}
	for dir := range bad {
		t.Errorf("code.md has no rule for %s", dir)
	}
	for dir := range good {
		t.Errorf("code.md has no rule for %s", dir)
	}
}

// TestEveryRuleChecked: every package the table names has the test that
// holds it to its row.
func TestEveryRuleChecked(t *testing.T) {
	t.Parallel()
	root, rules := rules(t)
	for _, r := range rules {
		names, _ := filepath.Glob(filepath.Join(root, filepath.FromSlash(r.Dir), "*_test.go"))
		if !slices.ContainsFunc(names, func(name string) bool {
			b, err := os.ReadFile(name)
			return err == nil && (strings.Contains(string(b), "imports.Check(t)") || r.Dir == "docs/imports")
		}) {
			t.Errorf("%s has a row in %s but no test calls imports.Check(t): add %s/imports_test.go", r.Dir, Page, r.Dir)
		}
	}
}

// TestProblemsFound runs the checker over a small tree of its own: an
// import the row refuses, through another package with reach, a test
// file's import with tests, and a pure package's goroutine and clock.
func TestProblemsFound(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	files := map[string]string{
		"a/a.go":      "package a\nimport (\n\t\"fencelab/b\"\n\t\"strings\"\n)\n",
		"a/a_test.go": "package a\nimport \"net/http\"\n",
		"b/b.go":      "package b\nimport \"time\"\nfunc f() { go f(); _ = time.Now() }\n",
	}
	for name, src := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rules, err := Parse("| word | stands for | why |\n|---|---|---|\n| pure | std but `sync` | no locks |\n\n" +
		"| package | may import | why |\n|---|---|---|\n" +
		"| `a` with its tests, and what they import | anything but `time`, `net…` | no clock, no net |\n" +
		"| `b` | pure | a pure one |\n")
	if err != nil {
		t.Fatal(err)
	}
	a, b := rules[0], rules[1]
	if !a.Reach || !a.Tests || a.Pure || b.Reach || !b.Pure {
		t.Fatalf("rules %+v, %+v: want a with reach and tests, b pure", a, b)
	}
	got := strings.Join(append(Problems(root, a), Problems(root, b)...), "\n")
	for _, want := range []string{
		"fencelab/a imports net/http (through fencelab/a)",
		"fencelab/a imports time (through fencelab/b); docs/code.md says it may import anything but `time`, `net…`: no clock, no net",
		"b/b.go starts a goroutine: the package is pure",
		"b/b.go reads the clock: the package is pure",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("problems lack %q; got:\n%s", want, got)
		}
	}
	if strings.Contains(got, "strings") {
		t.Errorf("problems name an import the rule allows:\n%s", got)
	}
	a.Tests = false
	if got := strings.Join(Problems(root, a), "\n"); strings.Contains(got, "net/http") {
		t.Errorf("without tests, the test file's import counts:\n%s", got)
	}
}

// TestParseErrors: a table the checker cannot read says why, by line.
func TestParseErrors(t *testing.T) {
	t.Parallel()
	head := "| package | may import | why |\n|---|---|---|\n"
	words := "| word | stands for | why |\n|---|---|---|\n"
	cases := map[string]struct{ page, want string }{
		"no table": {
			"# Code\n\nNo rules here.\n",
			`no table of rules (a header "| package | may import | why |")`},
		"unknown word": {
			head + "| `a` | std, webb | x |\n",
			`line 3: "std, webb": "webb" is neither a path in backticks nor a word of the table`},
		"empty": {
			head + "| `a` |  | x |\n",
			`line 3: "" allows nothing`},
		"cells": {
			head + "| `a` | std |\n",
			"line 3: 2 cells, want 3: | `a` | std |"},
		"package": {
			head + "| a | std | x |\n",
			`line 3: package "a": want a directory in backticks`},
		"suffix": {
			head + "| `a` and below | std | x |\n",
			"line 3: package \"`a` and below\": after the directory, want nothing, \"and what it imports\" or \"with its tests, and what they import\""},
		"twice": {
			head + "| `a` | std | x |\n| `a` | anything | y |\n",
			"line 4: a second rule for a"},
		"word twice": {
			words + "| std | anything | x |\n",
			`line 3: "std" cannot be defined: a word is one plain word, defined once`},
		"word later": {
			head + "| `a` | web | x |\n\n" + words + "| web | `fencelab/server` | x |\n",
			`line 3: "web": "web" is neither a path in backticks nor a word of the table`},
	}
	for name, c := range cases {
		_, err := Parse(c.page)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: Parse = %v, want %s", name, err, c.want)
		}
	}
}
