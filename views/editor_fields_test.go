package views_test

import (
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"fencelab/lab"
	"fencelab/lab/draft"
	"fencelab/views"
	"fencelab/views/htmltest"
)

// named matches the form control called name.
func named(name string) func(*html.Node) bool {
	return func(n *html.Node) bool { return htmltest.Attr(n, "name") == name }
}

// takes is the data-kinds of the palette field around control n: the
// kinds it is shown for, or "all".
func takes(n *html.Node) string {
	for p := n.Parent; p != nil; p = p.Parent {
		if p.Data == "div" && htmltest.HasClass(p, "ev-field") {
			return htmltest.Attr(p, "data-kinds")
		}
	}
	return ""
}

// TestEveryFieldHasAControl: each field a kind takes reaches the editor.
// The draft carries it, a card has a control for it (a restart's resource
// and scope are its one Restarts choice), and the palette offers it for
// that kind, so a field added to lab/event.go cannot be left out of the
// form unnoticed.
func TestEveryFieldHasAControl(t *testing.T) {
	palette := render(t, "Editor(blank)", views.Editor(views.EditorPage{Draft: draft.Draft{Add: draft.Event{Kind: lab.Acquire}}}))
	for _, k := range lab.Kinds() {
		for _, f := range lab.Fields(k) {
			if !slices.Contains(draft.FieldNames(), f) {
				t.Errorf("%s takes %s, which the draft does not carry: add it to the fields of lab/draft/draft.go", k, f)
			}
		}
		for _, f := range draft.Controls(k) {
			if f == "actor" {
				continue
			}
			control := htmltest.Find(palette, named(draft.AddName(f)))
			if control == nil {
				t.Errorf("a %s card has a control %s that the palette does not offer: add it to paletteFields", k, f)
				continue
			}
			if kinds := takes(control); kinds != "all" && !slices.Contains(strings.Fields(kinds), string(k)) {
				t.Errorf("the palette shows %s for kinds %q, want it to list %s", f, kinds, k)
			}
		}
	}
	var e draft.Event
	for _, f := range draft.FieldNames() {
		e.SetField(f, "x")
		if got := e.Field(f); got != "x" {
			t.Errorf("SetField(%q, x) then Field(%q) = %q, want x", f, f, got)
		}
	}
}

// TestRestartChoices: a restart's select lists each resource, then each
// scope, and keeps a choice that is neither, in words.
func TestRestartChoices(t *testing.T) {
	tests := []struct {
		current string
		want    []string
	}{
		{"", []string{"resource:result", "scope:job"}},
		{"scope:job", []string{"resource:result", "scope:job"}},
		{"scope:nope", []string{"resource:result", "scope:job", "scope:nope=scope nope"}},
		{"resource:result scope:job", []string{"resource:result", "scope:job", "resource:result scope:job=resource result and scope job"}},
	}
	for _, tt := range tests {
		restart := draft.Event{Kind: lab.Restart}
		restart.SetField(draft.Restarts, tt.current)
		d := draft.Draft{Scopes: []draft.Scope{{Name: "job"}}, Resources: []draft.Resource{{Name: "result"}},
			Events: []draft.Event{restart}, Add: draft.Event{Kind: lab.Acquire}}
		sel := htmltest.Find(render(t, "Editor(restart)", views.Editor(views.EditorPage{Draft: d})), named(draft.EventName(1, draft.Restarts)))
		if sel == nil {
			t.Fatalf("Editor(a restart of %q) has no control %s", tt.current, draft.EventName(1, draft.Restarts))
		}
		var got []string
		for i, o := range htmltest.FindAll(sel, func(n *html.Node) bool { return n.Data == "option" })[1:] { // after "choose what restarts"
			if i < 2 {
				got = append(got, htmltest.Attr(o, "value"))
			} else {
				got = append(got, htmltest.Attr(o, "value")+"="+htmltest.Text(o))
			}
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("Editor(a restart of %q): choices %q, want %q", tt.current, got, tt.want)
		}
	}
}
