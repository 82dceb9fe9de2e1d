package views

import (
	"slices"
	"testing"

	"fencelab/lab"
	"fencelab/lab/draft"
)

// TestEveryFieldHasAControl: each field a kind takes reaches the editor.
// The draft carries it, a card has a control for it (a restart's resource
// and scope are its one Restarts choice), and the palette offers it, so a
// field added to lab/event.go cannot be left out of the form unnoticed.
func TestEveryFieldHasAControl(t *testing.T) {
	for _, k := range lab.Kinds() {
		for _, f := range lab.Fields(k) {
			if !slices.Contains(draft.FieldNames(), f) {
				t.Errorf("%s takes %s, which the draft does not carry: add it to the fields of lab/draft/draft.go", k, f)
			}
		}
		for _, f := range draft.Controls(k) {
			if f != "actor" && !slices.Contains(paletteFields, f) {
				t.Errorf("a %s card has a control %s that the palette does not offer: add it to paletteFields", k, f)
			}
			if kindsTaking(f) == "" {
				t.Errorf("kindsTaking(%q) is empty, want it to list %s", f, k)
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
	d := &draft.Draft{Scopes: []draft.Scope{{Name: "job"}}, Resources: []draft.Resource{{Name: "result"}}}
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
		var got []string
		for i, c := range restartChoices(d, tt.current) {
			if i < 2 {
				got = append(got, c.Value)
			} else {
				got = append(got, c.Value+"="+c.Label)
			}
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("restartChoices(%q) = %q, want %q", tt.current, got, tt.want)
		}
	}
}
