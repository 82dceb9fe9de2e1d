package views_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// tableReaders are the functions of lab the views may call: each lists a
// table of the model (the policies, kinds, classes, invariants, threads)
// or looks a name up in one. Anything else the engine computes reaches the
// views through the page builders (the server's newReport, the explorer's
// counterexamples), computed once a request.
var tableReaders = map[string]bool{
	"Policies": true, "DefaultPolicies": true, "PolicyIndex": true, "Kinds": true, "Classes": true,
	"Invariants": true, "Threads": true,
}

// TestViewsAskTheEngineNothing: the pages' code, templ's generated Go
// included, calls no function of lab but the table readers. Methods of the
// values they are given (a trace's Outcomes.Of, a class's String) are
// reading, not asking.
func TestViewsAskTheEngineNothing(t *testing.T) {
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
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == "lab" && !tableReaders[sel.Sel.Name] && !isConversion(sel.Sel.Name) {
				t.Errorf("%s calls lab.%s: the page builder computes it and the view is given the result", fset.Position(call.Pos()), sel.Sel.Name)
			}
			return true
		})
	}
}

// isConversion reports whether lab.name(x) converts to one of lab's
// string types rather than calling a function.
func isConversion(name string) bool {
	switch name {
	case "Policy", "Kind", "Class", "Decision", "Invariant":
		return true
	}
	return false
}
