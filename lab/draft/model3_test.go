package draft_test

import (
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"fencelab/lab"
	"fencelab/lab/draft"
)

// two is a valid model-3 form: two scopes and two resources, so that no
// scope or resource is filled in by default.
func two(extra ...string) url.Values {
	return form(append([]string{"title=T",
		"scope.1.name=job", "scope.1.first_token=41", "scope.2.name=other", "scope.2.first_token=7",
		"resource.1.name=result", "resource.1.fencing=on", "resource.1.remember=durable",
		"resource.2.name=ledger", "resource.2.fencing=on", "resource.2.remember=durable",
		"actor.1.name=A", "actor.1.was=A", "actor.2.name=B", "actor.2.was=B"}, extra...)...)
}

// TestCompileModel3 compiles each model-3 field and option from the form
// into the scenario the engine parses.
func TestCompileModel3(t *testing.T) {
	yes := func() *bool { b := true; return &b }
	str := func(s string) *string { return &s }
	tests := []struct {
		name   string
		form   url.Values
		events []lab.Event
	}{
		{"split acquire", two("ev.1.kind=acquire", "ev.1.actor=B", "ev.1.scope=job", "ev.1.split=true"),
			[]lab.Event{{Actor: "B", Kind: lab.Acquire, Scope: "job", Split: yes()}}},
		{"split unchecked is left out", two("ev.1.kind=acquire", "ev.1.actor=B", "ev.1.scope=job", "ev.1.split="),
			[]lab.Event{{Actor: "B", Kind: lab.Acquire, Scope: "job"}}},
		{"rmw write under a named scope", two("ev.1.kind=write", "ev.1.actor=A", "ev.1.value=v", "ev.1.resource=ledger", "ev.1.scope=other", "ev.1.rmw=true"),
			[]lab.Event{{Actor: "A", Kind: lab.Write, Value: str("v"), Resource: "ledger", Scope: "other", RMW: yes()}}},
		{"rmw send", two("ev.1.kind=send", "ev.1.actor=A", "ev.1.value=v", "ev.1.id=m1", "ev.1.resource=result", "ev.1.rmw=true"),
			[]lab.Event{{Actor: "A", Kind: lab.Send, Value: str("v"), ID: "m1", Resource: "result", RMW: yes()}}},
		{"write with no scope: the latest grant's", two("ev.1.kind=write", "ev.1.actor=A", "ev.1.value=v", "ev.1.resource=result", "ev.1.scope="),
			[]lab.Event{{Actor: "A", Kind: lab.Write, Value: str("v"), Resource: "result"}}},
		{"check of a named scope", two("ev.1.kind=check", "ev.1.actor=A", "ev.1.scope=other"),
			[]lab.Event{{Actor: "A", Kind: lab.Check, Scope: "other"}}},
		{"read of one resource", two("ev.1.kind=read", "ev.1.actor=A", "ev.1.resource=ledger"),
			[]lab.Event{{Actor: "A", Kind: lab.Read, Resource: "ledger"}}},
		{"read of every resource", two("ev.1.kind=read", "ev.1.actor=A", "ev.1.resource="),
			[]lab.Event{{Actor: "A", Kind: lab.Read}}},
		{"restart of a resource", two("ev.1.kind=restart", "ev.1.restarts=resource:ledger"),
			[]lab.Event{{Kind: lab.Restart, Resource: "ledger"}}},
		{"restart of a scope", two("ev.1.kind=restart", "ev.1.restarts=scope:other"),
			[]lab.Event{{Kind: lab.Restart, Scope: "other"}}},
		{"the restarts choice wins over stale fields", two("ev.1.kind=restart", "ev.1.resource=result", "ev.1.restarts=scope:job"),
			[]lab.Event{{Kind: lab.Restart, Scope: "job"}}},
		{"a form without the choice keeps its fields", two("ev.1.kind=restart", "ev.1.resource=result"),
			[]lab.Event{{Kind: lab.Restart, Resource: "result"}}},
		{"fields a kind does not take are not sent", two("ev.1.kind=read", "ev.1.actor=A", "ev.1.rmw=true", "ev.2.kind=check", "ev.2.actor=A", "ev.2.split=true"),
			[]lab.Event{{Actor: "A", Kind: lab.Read}, {Actor: "A", Kind: lab.Check}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := draft.Decode(tt.form)
			sc, err := draft.Compile(&d)
			if err != nil {
				t.Fatalf("Compile(%v): %v", tt.form, err)
			}
			if diff := cmp.Diff(tt.events, sc.Events); diff != "" {
				t.Errorf("Compile(%v) events (-want +got):\n%s", tt.form, diff)
			}
		})
	}
}

// TestDeclarationsModel3 compiles the scopes' and resources' new options
// from the form, and back: a draft of the scenario holds what the form
// said, so the page shows it again.
func TestDeclarationsModel3(t *testing.T) {
	tests := []struct {
		name      string
		form      url.Values
		scopes    map[string]lab.Scope
		resources map[string]lab.Resource
	}{
		{"the defaults are left out", two(),
			map[string]lab.Scope{"job": {FirstToken: 41}, "other": {FirstToken: 7}},
			map[string]lab.Resource{"result": {Fencing: true, Remember: lab.Durable}, "ledger": {Fencing: true, Remember: lab.Durable}}},
		{"a memory scope", two("scope.2.remember=memory"),
			map[string]lab.Scope{"job": {FirstToken: 41}, "other": {FirstToken: 7, Remember: lab.Memory}},
			nil},
		{"a durable scope said so", two("scope.1.remember=durable"),
			map[string]lab.Scope{"job": {FirstToken: 41, Remember: lab.Durable}, "other": {FirstToken: 7}},
			nil},
		{"keys in memory, a token per scope", two("resource.2.keys=memory", "resource.2.tokens=per-scope"),
			nil,
			map[string]lab.Resource{"result": {Fencing: true, Remember: lab.Durable},
				"ledger": {Fencing: true, Remember: lab.Durable, Keys: lab.Memory, Tokens: lab.PerScopeTokens}}},
		{"durable keys and shared tokens said so", two("resource.1.keys=durable", "resource.1.tokens=shared"),
			nil,
			map[string]lab.Resource{"result": {Fencing: true, Remember: lab.Durable, Keys: lab.Durable, Tokens: lab.SharedTokens},
				"ledger": {Fencing: true, Remember: lab.Durable}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := draft.Decode(tt.form)
			sc, err := draft.Compile(&d)
			if err != nil {
				t.Fatalf("Compile(%v): %v", tt.form, err)
			}
			if diff := cmp.Diff(tt.scopes, sc.Scopes); tt.scopes != nil && diff != "" {
				t.Errorf("Compile(%v) scopes (-want +got):\n%s", tt.form, diff)
			}
			if diff := cmp.Diff(tt.resources, sc.Resources); tt.resources != nil && diff != "" {
				t.Errorf("Compile(%v) resources (-want +got):\n%s", tt.form, diff)
			}
			back := draft.Of(sc, "")
			if diff := cmp.Diff(sortScopes(d.Scopes), sortScopes(back.Scopes)); diff != "" {
				t.Errorf("Of(Compile(%v)) scopes (-form +back):\n%s", tt.form, diff)
			}
			if diff := cmp.Diff(sortResources(d.Resources), sortResources(back.Resources)); diff != "" {
				t.Errorf("Of(Compile(%v)) resources (-form +back):\n%s", tt.form, diff)
			}
		})
	}
}

func sortScopes(s []draft.Scope) []draft.Scope {
	s = slices.Clone(s)
	slices.SortFunc(s, func(a, b draft.Scope) int { return strings.Compare(a.Name, b.Name) })
	return s
}

func sortResources(r []draft.Resource) []draft.Resource {
	r = slices.Clone(r)
	slices.SortFunc(r, func(a, b draft.Resource) int { return strings.Compare(a.Name, b.Name) })
	return r
}

// TestRoundTripModel3 takes every model-3 event field from the form to a
// scenario and back to the draft the page shows: the cards hold what the
// form said.
func TestRoundTripModel3(t *testing.T) {
	f := two("scope.2.remember=memory", "resource.2.keys=memory", "resource.2.tokens=per-scope",
		"ev.1.kind=acquire", "ev.1.actor=A", "ev.1.scope=job",
		"ev.2.kind=acquire", "ev.2.actor=B", "ev.2.scope=job", "ev.2.split=true",
		"ev.3.kind=read", "ev.3.actor=A", "ev.3.resource=ledger",
		"ev.4.kind=check", "ev.4.actor=A", "ev.4.scope=job",
		"ev.5.kind=write", "ev.5.actor=A", "ev.5.value=v", "ev.5.resource=ledger", "ev.5.scope=job", "ev.5.rmw=true",
		"ev.6.kind=send", "ev.6.actor=B", "ev.6.value=w", "ev.6.id=m1", "ev.6.resource=result", "ev.6.rmw=true",
		"ev.7.kind=restart", "ev.7.restarts=scope:other",
		"ev.8.kind=restart", "ev.8.restarts=resource:ledger",
		"ev.9.kind=read", "ev.9.actor=B")
	d := draft.Decode(f)
	sc, err := draft.Compile(&d)
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	back := draft.Of(sc, "")
	if diff := cmp.Diff(d.Events, back.Events); diff != "" {
		t.Errorf("Of(Compile(form)) events (-form +back):\n%s", diff)
	}
	for n, want := range map[int]string{7: "scope:other", 8: "resource:ledger"} {
		if got := back.Events[n-1].Field(draft.Restarts); got != want {
			t.Errorf("card %d Field(%q) = %q, want %q", n, draft.Restarts, got, want)
		}
	}
}

// TestPlaceModel3 makes each model-3 validation error the engine gives on
// a form, and checks where it lands: on the control that shows the field,
// or on the card when no control does.
func TestPlaceModel3(t *testing.T) {
	tests := []struct {
		name  string
		form  url.Values
		marks []string // "control card" of each mark
	}{
		{"restart of neither", two("ev.1.kind=restart", "ev.1.restarts="), []string{"ev.1.restarts 1"}},
		{"restart of both", two("ev.1.kind=restart", "ev.1.restarts=resource:result scope:job"), []string{"ev.1.restarts 1"}},
		{"restart of an undeclared scope", two("ev.1.kind=restart", "ev.1.restarts=scope:nope"), []string{"ev.1.restarts 1"}},
		{"restart of an undeclared resource", two("ev.1.kind=restart", "ev.1.restarts=resource:disk"), []string{"ev.1.restarts 1"}},
		{"write under an undeclared scope", two("ev.1.kind=write", "ev.1.actor=A", "ev.1.value=v", "ev.1.resource=result", "ev.1.scope=nope"),
			[]string{"ev.1.scope 1"}},
		{"send under an undeclared scope", two("ev.1.kind=send", "ev.1.actor=A", "ev.1.value=v", "ev.1.id=m1", "ev.1.resource=result", "ev.1.scope=nope"),
			[]string{"ev.1.scope 1"}},
		{"check of an undeclared scope", two("ev.1.kind=check", "ev.1.actor=A", "ev.1.scope=nope"), []string{"ev.1.scope 1"}},
		{"read of an undeclared resource", two("ev.1.kind=read", "ev.1.actor=A", "ev.1.resource=disk"), []string{"ev.1.resource 1"}},
		{"split not a flag", two("ev.1.kind=acquire", "ev.1.actor=A", "ev.1.scope=job", "ev.1.split=yes"), []string{"ev.1.split 1"}},
		{"rmw not a flag", two("ev.1.kind=write", "ev.1.actor=A", "ev.1.value=v", "ev.1.resource=result", "ev.1.rmw=maybe"), []string{"ev.1.rmw 1"}},
		{"scope remember not an option", two("scope.2.remember=forever"), []string{"scope.2.remember 0"}},
		{"resource keys not an option", two("resource.2.keys=disk"), []string{"resource.2.keys 0"}},
		{"resource tokens not an option", two("resource.1.tokens=many"), []string{"resource.1.tokens 0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := draft.Decode(tt.form)
			_, err := draft.Compile(&d)
			var inv *lab.ValidationError
			if !errors.As(err, &inv) {
				t.Fatalf("Compile(%v) = %v, want a validation error", tt.form, err)
			}
			var got []string
			for _, m := range draft.Place(&d, inv.Errors) {
				got = append(got, m.Control+" "+strconv.Itoa(m.Card))
			}
			if !slices.Equal(got, tt.marks) {
				t.Errorf("Place(Compile(%v)) = %q, want %q (%v)", tt.form, got, tt.marks, inv)
			}
		})
	}
}

// TestPlacePasted: errors a form cannot make but a pasted scenario can
// carry land on the card when it has no control for the field, and a
// restart's resource or scope lands on its one choice.
func TestPlacePasted(t *testing.T) {
	d := draft.Draft{Events: []draft.Event{{Kind: lab.Read, Actor: "A"}, {Kind: lab.Restart, Resource: "r", Scope: "s"}, {Kind: lab.Check, Actor: "A"}}}
	tests := []struct {
		fe      lab.FieldError
		control string
		card    int
	}{
		{lab.FieldError{Index: 1, Field: "rmw"}, "", 1},
		{lab.FieldError{Index: 1, Field: "scope"}, "", 1},
		{lab.FieldError{Index: 2, Field: "scope"}, "ev.2.restarts", 2},
		{lab.FieldError{Index: 2, Field: "resource"}, "ev.2.restarts", 2},
		{lab.FieldError{Index: 2, Field: "actor"}, "", 2},
		{lab.FieldError{Index: 3, Field: "split"}, "", 3},
	}
	for _, tt := range tests {
		marks := draft.Place(&d, []lab.FieldError{tt.fe})
		if len(marks) != 1 || marks[0].Control != tt.control || marks[0].Card != tt.card {
			t.Errorf("Place(%+v) = %+v, want one mark on control %q card %d", tt.fe, marks, tt.control, tt.card)
		}
	}
}

// TestControls: every kind's card has a control for each field it takes,
// but a restart, whose resource and scope are one choice.
func TestControls(t *testing.T) {
	for _, k := range lab.Kinds() {
		want := lab.Fields(k)
		if k == lab.Restart {
			want = []string{draft.Restarts}
		}
		if got := draft.Controls(k); !slices.Equal(got, want) {
			t.Errorf("Controls(%s) = %q, want %q", k, got, want)
		}
	}
	for _, tt := range []struct {
		e    draft.Event
		want string
	}{
		{draft.Event{Kind: lab.Restart}, ""},
		{draft.Event{Kind: lab.Restart, Resource: "r"}, "resource:r"},
		{draft.Event{Kind: lab.Restart, Scope: "s"}, "scope:s"},
		{draft.Event{Kind: lab.Restart, Resource: "r", Scope: "s"}, "resource:r scope:s"},
	} {
		if got := tt.e.Field(draft.Restarts); got != tt.want {
			t.Errorf("%+v.Field(%q) = %q, want %q", tt.e, draft.Restarts, got, tt.want)
		}
		var back draft.Event
		back.SetField(draft.Restarts, tt.want)
		if back.Resource != tt.e.Resource || back.Scope != tt.e.Scope {
			t.Errorf("SetField(%q, %q) = resource %q scope %q, want %q %q", draft.Restarts, tt.want, back.Resource, back.Scope, tt.e.Resource, tt.e.Scope)
		}
	}
}

// TestAddModel3 adds each kind with a model-3 field from the palette, as
// the form's Add button does without JavaScript.
func TestAddModel3(t *testing.T) {
	tests := []struct {
		add   []string
		want  draft.Event
		focus string
	}{
		{[]string{"add.kind=acquire", "add.actor=B", "add.scope=job", "add.split=true"},
			draft.Event{Kind: lab.Acquire, Actor: "B", Scope: "job", Split: "true"}, "ev-1-actor"},
		{[]string{"add.kind=write", "add.actor=A", "add.value=v", "add.resource=ledger", "add.scope=other", "add.rmw=true"},
			draft.Event{Kind: lab.Write, Actor: "A", Value: "v", Resource: "ledger", Scope: "other", RMW: "true"}, "ev-1-actor"},
		{[]string{"add.kind=read", "add.actor=A", "add.resource=ledger", "add.rmw=true"},
			draft.Event{Kind: lab.Read, Actor: "A", Resource: "ledger"}, "ev-1-actor"},
		{[]string{"add.kind=restart", "add.scope=job", "add.restarts=scope:other"},
			draft.Event{Kind: lab.Restart, Scope: "other"}, "ev-1-restarts"},
		{[]string{"add.kind=restart", "add.scope=job", "add.restarts="},
			draft.Event{Kind: lab.Restart, Resource: "result"}, "ev-1-restarts"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.add, " "), func(t *testing.T) {
			d := draft.Decode(two(tt.add...))
			focus := draft.Apply(&d, string(draft.Add))
			if len(d.Events) != 1 {
				t.Fatalf("Apply(add) with %q: %d events, want 1", tt.add, len(d.Events))
			}
			if diff := cmp.Diff(tt.want, d.Events[0]); diff != "" {
				t.Errorf("Apply(add) with %q (-want +got):\n%s", tt.add, diff)
			}
			if focus != tt.focus {
				t.Errorf("Apply(add) with %q focus = %q, want %q", tt.add, focus, tt.focus)
			}
		})
	}
}
