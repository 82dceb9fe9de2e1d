package draft_test

import (
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"fencelab/lab"
	"fencelab/lab/draft"
	"fencelab/scenarios"
)

// form builds editor form values from "key=value" pairs; a later pair
// replaces an earlier one.
func form(pairs ...string) url.Values {
	v := url.Values{}
	for _, p := range pairs {
		k, val, _ := strings.Cut(p, "=")
		v.Set(k, val)
	}
	return v
}

// base is a valid draft's form: one scope, one resource, two actors.
func base(extra ...string) url.Values {
	return form(append([]string{"title=T", "scope.1.name=job", "scope.1.first_token=41",
		"resource.1.name=result", "resource.1.fencing=on", "resource.1.remember=durable",
		"actor.1.name=A", "actor.1.was=A", "actor.2.name=B", "actor.2.was=B"}, extra...)...)
}

func TestCompile(t *testing.T) {
	t.Parallel()
	tok := func(n int64) *int64 { return &n }
	str := func(s string) *string { return &s }
	tests := []struct {
		name   string
		form   url.Values
		events []lab.Event // the parsed events, when valid
		errs   []string    // "index field" of each error, when not
	}{
		{"acquire with the default token", base("ev.1.kind=acquire", "ev.1.actor=A", "ev.1.token="),
			[]lab.Event{{Actor: "A", Kind: lab.Acquire, Scope: "job"}}, nil},
		{"explicit token and note", base("ev.1.kind=acquire", "ev.1.actor=A", "ev.1.token= 7 ", "ev.1.note=hi"),
			[]lab.Event{{Actor: "A", Kind: lab.Acquire, Scope: "job", Token: tok(7), Note: "hi"}}, nil},
		{"write with null token and empty value", base("ev.1.kind=write", "ev.1.actor=B", "ev.1.value=", "ev.1.token=null"),
			[]lab.Event{{Actor: "B", Kind: lab.Write, Resource: "result", Value: str(""), TokenNull: true}}, nil},
		{"events in step order, not form order", base("ev.10.kind=read", "ev.10.actor=B", "ev.9.kind=read", "ev.9.actor=A"),
			[]lab.Event{{Actor: "A", Kind: lab.Read}, {Actor: "B", Kind: lab.Read}}, nil},
		{"a rename carries over to the events", base("actor.1.name=Ann", "ev.1.kind=pause", "ev.1.actor=A"),
			[]lab.Event{{Actor: "Ann", Kind: lab.Pause}}, nil},
		{"fields the kind does not take are not sent", base("ev.1.kind=read", "ev.1.actor=A", "ev.1.value=x", "ev.1.token=3"),
			[]lab.Event{{Actor: "A", Kind: lab.Read}}, nil},
		{"no scopes or resources: the defaults", form("title=T", "ev.1.kind=acquire", "ev.1.actor=A"),
			[]lab.Event{{Actor: "A", Kind: lab.Acquire, Scope: "job"}}, nil},
		{"token not a number", base("ev.1.kind=acquire", "ev.1.actor=A", "ev.1.token=4.5"), nil, []string{"1 token"}},
		{"token text", base("ev.1.kind=write", "ev.1.actor=A", "ev.1.value=v", "ev.1.token=abc"), nil, []string{"1 token"}},
		{"missing actor", base("ev.1.kind=read", "ev.1.actor="), nil, []string{"1 actor"}},
		{"deliver naming no send", base("ev.1.kind=deliver", "ev.1.request=m9"), nil, []string{"1 request"}},
		{"unknown kind", base("ev.1.kind=teleport", "ev.1.actor=A"), nil, []string{"1 kind"}},
		{"title too long", base("title="+strings.Repeat("t", 121), "ev.1.kind=read", "ev.1.actor=A"), nil, []string{"0 title"}},
		{"first token not a number", base("scope.1.first_token=forty"), nil, []string{"0 scopes.job.first_token"}},
		{"scope declared twice", base("scope.2.name=job"), nil, []string{"0 scopes.job"}},
		{"undeclared resource", base("ev.1.kind=restart", "ev.1.resource=disk"), nil, []string{"1 resource"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := draft.Decode(tt.form)
			sc, err := draft.Compile(&d)
			var inv *lab.ValidationError
			if tt.errs != nil {
				if !errors.As(err, &inv) {
					t.Fatalf("Compile(%v) = %v, want a validation error", tt.form, err)
				}
				var got []string
				for _, fe := range inv.Errors {
					got = append(got, strconv.Itoa(fe.Index)+" "+fe.Field)
				}
				if !slices.Equal(got, tt.errs) {
					t.Errorf("Compile(%v) errors at %q, want %q (%v)", tt.form, got, tt.errs, inv)
				}
				return
			}
			if err != nil {
				t.Fatalf("Compile(%v): %v", tt.form, err)
			}
			if diff := cmp.Diff(tt.events, sc.Events); diff != "" {
				t.Errorf("Compile(%v) events (-want +got):\n%s", tt.form, diff)
			}
		})
	}
}

// TestOfBuiltins turns every built-in into a draft and back: the
// same scenario, byte for byte as saved.
func TestOfBuiltins(t *testing.T) {
	t.Parallel()
	lib, err := lab.LoadLibrary(scenarios.FS, scenarios.Order())
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range lib.List {
		t.Run(b.Name, func(t *testing.T) {
			d := draft.Of(b.Scenario, b.Name)
			sc, err := draft.Compile(&d)
			if err != nil {
				t.Fatalf("Compile(Of(%s)): %v", b.Name, err)
			}
			want, _ := json.Marshal(b.Scenario)
			got, _ := json.Marshal(sc)
			if string(got) != string(want) {
				t.Errorf("draft of %s compiles to another scenario:\n%s", b.Name, cmp.Diff(string(want), string(got)))
			}
		})
	}
}

func TestApply(t *testing.T) {
	t.Parallel()
	kinds := func(d draft.Draft) string {
		var out []string
		for _, e := range d.Events {
			out = append(out, e.Actor+":"+string(e.Kind)+e.ID+e.Request+e.Value)
		}
		return strings.Join(out, " ")
	}
	three := base("ev.1.kind=acquire", "ev.1.actor=A", "ev.2.kind=send", "ev.2.actor=A", "ev.2.value=v", "ev.2.id=m1",
		"ev.3.kind=pause", "ev.3.actor=B")
	tests := []struct {
		op, add     string // add: the palette's kind and actor
		want, focus string
	}{
		{draft.Op(draft.Up, 3), "", "A:acquire B:pause A:sendm1v", "ev-2-up"},
		{draft.Op(draft.Up, 1), "", "A:acquire A:sendm1v B:pause", "ev-1-up"},
		{draft.Op(draft.Down, 1), "", "A:sendm1v A:acquire B:pause", "ev-2-down"},
		{draft.Op(draft.Down, 3), "", "A:acquire A:sendm1v B:pause", "ev-3-down"},
		{draft.Op(draft.Dup, 2), "", "A:acquire A:sendm1v A:sendm2v B:pause", "ev-3-actor"},
		{draft.Op(draft.Del, 3), "", "A:acquire A:sendm1v", "ev-2-del"},
		{draft.Op(draft.Del, 1), "", "A:sendm1v B:pause", "ev-1-del"},
		{draft.Op(draft.Del, 9), "", "A:acquire A:sendm1v B:pause", ""},
		{string(draft.Run), "", "A:acquire A:sendm1v B:pause", ""},
		{"nonsense.2", "", "A:acquire A:sendm1v B:pause", ""},
		{string(draft.Add), "write B", "A:acquire A:sendm1v B:pause B:writefrom B", "ev-4-actor"},
		{string(draft.Add), "send A", "A:acquire A:sendm1v B:pause A:sendm2from A", "ev-4-actor"},
		{string(draft.Add), "deliver", "A:acquire A:sendm1v B:pause :deliverm1", "ev-4-request"},
		{string(draft.Add), "teleport A", "A:acquire A:sendm1v B:pause", "add-event"},
		{draft.AddOp(lab.Read, 1), "acquire B", "B:read A:acquire A:sendm1v B:pause", "ev-1-actor"},
		{draft.AddOp(lab.Deliver, 3), "", "A:acquire A:sendm1v :deliverm1 B:pause", "ev-3-request"},
		{draft.AddOp(lab.Crash, 9), "crash A", "A:acquire A:sendm1v B:pause A:crash", "ev-4-actor"},
	}
	for _, tt := range tests {
		t.Run(tt.op+" "+tt.add, func(t *testing.T) {
			f := url.Values{}
			for k, v := range three {
				f[k] = v
			}
			if k, a, _ := strings.Cut(tt.add, " "); k != "" {
				f.Set("add.kind", k)
				f.Set("add.actor", a)
			}
			d := draft.Decode(f)
			focus := draft.Apply(&d, tt.op)
			if got := kinds(d); got != tt.want {
				t.Errorf("Apply(%q) events = %q, want %q", tt.op, got, tt.want)
			}
			if focus != tt.focus {
				t.Errorf("Apply(%q) focus = %q, want %q", tt.op, focus, tt.focus)
			}
		})
	}
}

func TestApplyDeclarations(t *testing.T) {
	t.Parallel()
	d := draft.Decode(base("ev.1.kind=read", "ev.1.actor=A"))
	if focus := draft.Apply(&d, string(draft.ActorAdd)); focus != "actor-3-name" || d.Actors[2].Name != "C" {
		t.Errorf("actor-add: focus %q, actors %v; want actor-3-name and C", focus, d.Actors)
	}
	draft.Apply(&d, draft.Op(draft.ActorDel, 1)) // A is used: kept
	draft.Apply(&d, draft.Op(draft.ActorDel, 2)) // B is not
	if got := len(d.Actors); got != 2 || d.Actors[0].Name != "A" || d.Actors[1].Name != "C" {
		t.Errorf("after removing B and trying A, actors = %v, want A and C", d.Actors)
	}
	draft.Apply(&d, string(draft.ScopeAdd))
	draft.Apply(&d, string(draft.ResourceAdd))
	if len(d.Scopes) != 2 || d.Scopes[1].Name != "scope2" || len(d.Resources) != 2 || d.Resources[1].Name != "resource2" {
		t.Errorf("scope-add, resource-add: scopes %v, resources %v", d.Scopes, d.Resources)
	}
	draft.Apply(&d, draft.Op(draft.ScopeDel, 1))
	draft.Apply(&d, draft.Op(draft.ResourceDel, 2))
	if len(d.Scopes) != 1 || d.Scopes[0].Name != "scope2" || len(d.Resources) != 1 {
		t.Errorf("scope-del.1, resource-del.2: scopes %v, resources %v", d.Scopes, d.Resources)
	}
}

// TestKindFieldsMatchTheEngine keeps the editor's table of fields per
// kind in step with lab.Parse: a card offers a field exactly when the
// engine takes it on that kind.
func TestKindFieldsMatchTheEngine(t *testing.T) {
	t.Parallel()
	sample := map[string]any{"actor": "A", "scope": "job", "resource": "result", "value": "v",
		"id": "x", "request": "x", "op": "o", "token": 1, "split": true, "rmw": true}
	for _, k := range lab.Kinds() {
		for _, f := range draft.FieldNames() {
			if f == "note" {
				continue
			}
			ev := map[string]any{"kind": k, f: sample[f]}
			src, _ := json.Marshal(map[string]any{"version": 1, "title": "t", "events": []any{ev}})
			_, err := lab.Parse(strings.NewReader(string(src)))
			var inv *lab.ValidationError
			rejected := false
			if errors.As(err, &inv) {
				for _, fe := range inv.Errors {
					if fe.Index == 1 && fe.Field == f && strings.Contains(fe.Message, "does not take") {
						rejected = true
					}
				}
			}
			if got, want := draft.Takes(k, f), !rejected; got != want {
				t.Errorf("Takes(%s, %s) = %v, but lab.Parse takes it: %v", k, f, got, want)
			}
		}
	}
}

func TestPlace(t *testing.T) {
	t.Parallel()
	d := draft.Draft{
		Scopes:    []draft.Scope{{Name: "job"}, {Name: "other"}},
		Resources: []draft.Resource{{Name: "result"}},
		Events:    []draft.Event{{Kind: lab.Acquire, Actor: "A"}, {Kind: lab.Deliver, Request: "m9"}},
	}
	tests := []struct {
		fe      lab.FieldError
		control string
		card    int
	}{
		{lab.FieldError{Index: 2, Field: "request"}, "ev.2.request", 2},
		{lab.FieldError{Index: 1, Field: "scope"}, "ev.1.scope", 1},
		{lab.FieldError{Index: 1, Field: "value"}, "", 1}, // acquire has no value field to show it on
		{lab.FieldError{Index: 1, Field: "note"}, "ev.1.note", 1},
		{lab.FieldError{Index: 0, Field: "title"}, "title", 0},
		{lab.FieldError{Index: 0, Field: "scopes.other.first_token"}, "scope.2.first_token", 0},
		{lab.FieldError{Index: 0, Field: "scopes.other"}, "scope.2.name", 0},
		{lab.FieldError{Index: 0, Field: "resources.result.remember"}, "resource.1.remember", 0},
		{lab.FieldError{Index: 0, Field: "events"}, "", 0},
	}
	for _, tt := range tests {
		marks := draft.Place(&d, []lab.FieldError{tt.fe})
		if len(marks) != 1 || marks[0].Control != tt.control || marks[0].Card != tt.card {
			t.Errorf("Place(%+v) = %+v, want one mark on control %q card %d", tt.fe, marks, tt.control, tt.card)
		}
	}
}

// TestPlaceActorName renames actor A to Zoë, which is not a name: the
// mistake is marked once, on the actor's own field, and on none of the
// cards A acts in.
func TestPlaceActorName(t *testing.T) {
	t.Parallel()
	d := draft.Decode(base("actor.1.name=Zoë", "ev.1.kind=acquire", "ev.1.actor=A", "ev.2.kind=pause", "ev.2.actor=A",
		"ev.3.kind=read", "ev.3.actor=B", "ev.4.kind=write", "ev.4.actor=A", "ev.4.value=v"))
	_, err := draft.Compile(&d)
	var inv *lab.ValidationError
	if !errors.As(err, &inv) {
		t.Fatalf("Compile with actor Zoë = %v, want a validation error", err)
	}
	marks := draft.Place(&d, inv.Errors)
	if len(marks) != 1 {
		t.Fatalf("Place(%v) = %d marks %+v, want 1", inv.Errors, len(marks), marks)
	}
	if m := marks[0]; m.Control != "actor.1.name" || m.Card != 0 || !strings.Contains(m.Message, `"Zoë" is not a name`) {
		t.Errorf("Place: %+v, want the engine's message on actor.1.name and no card", m)
	}
}

// TestNames: the templates the editor's script reads are the names the
// server makes, and the parts of a card share its prefix.
func TestNames(t *testing.T) {
	t.Parallel()
	fill := strings.NewReplacer("{n}", "12", "{field}", "value").Replace
	if got, want := fill(draft.EventNameTemplate), draft.EventName(12, "value"); got != want {
		t.Errorf("EventNameTemplate gives %q, EventName %q", got, want)
	}
	if got, want := fill(draft.EventIDTemplate), draft.CardID(12, "value"); got != want {
		t.Errorf("EventIDTemplate gives %q, CardID %q", got, want)
	}
	if got, want := fill(draft.CardIDTemplate), draft.CardID(12, ""); got != want {
		t.Errorf("CardIDTemplate gives %q, CardID %q", got, want)
	}
	for _, tt := range []struct{ got, want string }{
		{draft.EventName(3, "value"), "ev.3.value"},
		{draft.EventName(3, ""), "ev.3"},
		{draft.ID(draft.EventName(3, "value")), "ev-3-value"},
		{draft.CardID(3, ""), "ev-3"},
		{draft.Name(draft.ScopePart, 2, "first_token"), "scope.2.first_token"},
		{draft.AddName("kind"), "add.kind"},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
	f := draft.FieldNames()
	f[0] = "changed"
	if draft.FieldNames()[0] != "actor" {
		t.Errorf("FieldNames returns a slice its callers can change")
	}
}

// TestMarkAnchor: an error's link leads to its control, else its card,
// else the editor as a whole.
func TestMarkAnchor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		m    draft.Mark
		want string
	}{
		{draft.Mark{Control: draft.EventName(3, "request"), Card: 3}, draft.ID(draft.EventName(3, "request"))},
		{draft.Mark{Card: 2}, draft.CardID(2, "")},
		{draft.Mark{}, "editor"},
	}
	for _, tt := range tests {
		if got := tt.m.Anchor(); got != tt.want {
			t.Errorf("%+v.Anchor() = %q, want %q", tt.m, got, tt.want)
		}
	}
}

// TestEmptyTitleIsTheDefault: a title left empty (the field shows the
// default as its placeholder) saves as the default, not as an error.
func TestEmptyTitleIsTheDefault(t *testing.T) {
	t.Parallel()
	d := draft.Decode(base("title=  ", "ev.1.kind=read", "ev.1.actor=A"))
	sc, err := draft.Compile(&d)
	if err != nil || sc.Title != draft.DefaultTitle {
		t.Fatalf("Compile of an empty title = %v, %v; want the title %q", sc, err, draft.DefaultTitle)
	}
}
