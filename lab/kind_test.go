package lab

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"testing"
)

// TestKindRulesAgree: each row of kindRules says the same thing twice
// where it must, once in its fields and once in its facets, so that a new
// kind's row cannot take a scope it never checks or name a request it
// never takes.
func TestKindRulesAgree(t *testing.T) {
	t.Parallel()
	for _, row := range kindRules {
		k, r := row.kind, row.kindRule
		if len(r.fields) == 0 || r.required > len(r.fields) {
			t.Errorf("kindRules, %s: %d required of fields %v; want at least one field, and no more required than fields", k, r.required, r.fields)
		}
		for i, f := range r.fields {
			if !slices.Contains(allFields, f) || f == "kind" || f == "note" || slices.Index(r.fields, f) != i {
				t.Errorf("kindRules, %s: field %q is unknown, implied or given twice (fields are %v)", k, f, allFields)
			}
		}
		for _, c := range []struct {
			field string
			n     naming
		}{{"scope", r.scope}, {"resource", r.resource}} {
			if r.takes(c.field) != (c.n != namesNone) {
				t.Errorf("kindRules, %s: takes %s = %v, but its %s naming is %d", k, c.field, r.takes(c.field), c.field, c.n)
			}
		}
		if r.sends && !(r.takes("value") && r.takes("token")) {
			t.Errorf("kindRules, %s: sends, so it takes a value and a token, but its fields are %v", k, r.fields)
		}
		if r.namesRequest() != r.takes("request") || r.delivers && r.commits || r.sends && r.namesRequest() {
			t.Errorf("kindRules, %s: sends %v, delivers %v, commits %v with fields %v: "+
				"a kind that names a request takes one, and does one thing with it", k, r.sends, r.delivers, r.commits, r.fields)
		}
	}
}

// kindFacetCase is what a kind's exported facets answer.
type kindFacetCase struct {
	kind            Kind
	scope, resource bool // DefaultsScope, DefaultsResource
}

var kindFacetCases = []kindFacetCase{
	{Acquire, true, false}, {Read, false, false}, {Pause, false, false}, {Resume, false, false},
	{Expire, true, false}, {Renew, true, false}, {Release, true, false}, {Check, false, false},
	{Write, false, true}, {Send, false, true}, {Deliver, false, false}, {Commit, false, false},
	{Restart, false, false}, {Crash, false, false}, {"no-such-kind", false, false},
}

func TestKindFacets(t *testing.T) {
	t.Parallel()
	for _, c := range kindFacetCases {
		if got := c.kind.DefaultsScope(); got != c.scope {
			t.Errorf("Kind(%q).DefaultsScope() = %v, want %v", c.kind, got, c.scope)
		}
		if got := c.kind.DefaultsResource(); got != c.resource {
			t.Errorf("Kind(%q).DefaultsResource() = %v, want %v", c.kind, got, c.resource)
		}
		if got, want := c.kind.NamesRequest(), c.kind == Deliver || c.kind == Commit; got != want {
			t.Errorf("Kind(%q).NamesRequest() = %v, want %v", c.kind, got, want)
		}
		if got, want := c.kind.Takes("id"), c.kind == Send; got != want {
			t.Errorf("Kind(%q).Takes(\"id\") = %v, want %v: the draft gives a send its id by it", c.kind, got, want)
		}
	}
	for _, k := range Kinds() {
		if !slices.ContainsFunc(kindFacetCases, func(c kindFacetCase) bool { return c.kind == k }) {
			t.Errorf("kind %s has no case in kindFacetCases (lab/kind_test.go)", k)
		}
	}
}

// kindSwitches are the switches on an event's kind that do each kind's own
// work, and so must name every kind, but those left to the switch's
// default on purpose (rest): the file (from lab), the function, and the
// expression switched on. Everything else about a kind is its row; the
// kinds' words are views' (TestEveryKindComplete).
var kindSwitches = []struct {
	file, fn, on string
	rest         []Kind
}{
	{"replay.go", "step", "e.kind", nil},
	// What fencelab probe sends a real receiver, and expects back.
	{"probe/expectations.go", "expectations", "e.Kind", []Kind{Read, Pause, Resume, Expire, Renew, Release, Check, Commit, Crash}},
	// How the diagram and the Mermaid export draw it; the rest are marks
	// beside their lane, or notes.
	{"../views/diagram/bands.go", "event", "g.t.Steps[i].Event.Kind", []Kind{Pause, Resume, Expire, Restart, Crash}},
	{"../views/export/mermaid.go", "Mermaid", "e.Kind", []Kind{Pause, Resume, Crash}},
}

// TestKindSwitchesComplete: a kind added to kindRules without its case in
// each of kindSwitches fails here, naming the place, instead of doing
// nothing at replay.
func TestKindSwitchesComplete(t *testing.T) {
	t.Parallel()
	for _, place := range kindSwitches {
		f, err := parser.ParseFile(token.NewFileSet(), place.file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		consts := kindConsts(t)
		named, found := map[string]bool{}, false
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Name.Name != place.fn {
				continue
			}
			ast.Inspect(fn, func(n ast.Node) bool {
				sw, ok := n.(*ast.SwitchStmt)
				if !ok || sw.Tag == nil || exprText(sw.Tag) != place.on {
					return true
				}
				found = true
				for _, s := range sw.Body.List {
					for _, e := range s.(*ast.CaseClause).List {
						switch e := e.(type) {
						case *ast.Ident:
							named[e.Name] = true
						case *ast.SelectorExpr: // lab.Send
							named[e.Sel.Name] = true
						}
					}
				}
				return true
			})
		}
		if !found {
			t.Errorf("%s: no switch on %s in %s; kindSwitches (lab/kind_test.go) names it", place.file, place.on, place.fn)
			continue
		}
		for _, row := range kindRules {
			c := consts[row.kind]
			if c == "" {
				c = "its constant in scenario.go"
			}
			switch left := slices.Contains(place.rest, row.kind); {
			case !named[c] && !left:
				t.Errorf("%s, %s: the switch on %s has no case for %s (%s): give it one, "+
					"or name it in the rest of kindSwitches (lab/kind_test.go) if the default is right for it",
					place.file, place.fn, place.on, c, row.kind)
			case named[c] && left:
				t.Errorf("%s, %s: the switch on %s has a case for %s, which kindSwitches (lab/kind_test.go) leaves to its default",
					place.file, place.fn, place.on, c)
			}
		}
	}
}

// exprText spells a selector such as e.kind or g.t.Steps[i].Event.Kind.
func exprText(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return exprText(e.X) + "." + e.Sel.Name
	case *ast.IndexExpr:
		return exprText(e.X) + "[" + exprText(e.Index) + "]"
	}
	return ""
}

// kindConsts names each kind's Go constant, as scenario.go declares it:
// "acquire" is Acquire.
func kindConsts(t *testing.T) map[Kind]string {
	f, err := parser.ParseFile(token.NewFileSet(), "scenario.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[Kind]string{}
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.CONST {
			for _, s := range g.Specs {
				v := s.(*ast.ValueSpec)
				if typ, ok := v.Type.(*ast.Ident); !ok || typ.Name != "Kind" || len(v.Values) != len(v.Names) {
					continue
				}
				for i, name := range v.Names {
					if lit, ok := v.Values[i].(*ast.BasicLit); ok {
						if k, err := strconv.Unquote(lit.Value); err == nil {
							out[Kind(k)] = name.Name
						}
					}
				}
			}
		}
	}
	return out
}
