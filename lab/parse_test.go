package lab

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// wantErr is one error a test expects: event index and field.
type wantErr struct {
	index int
	field string
}

func TestParseRejects(t *testing.T) {
	t.Parallel()
	ok := `{"actor":"A","kind":"acquire"}`
	wrap := func(events ...string) string {
		return `{"version":1,"title":"t","events":[` + strings.Join(events, ",") + `]}`
	}
	tests := []struct {
		name string
		src  string
		want []wantErr
	}{
		{"unknown top-level field", `{"version":1,"title":"t","events":[],"colour":"red"}`, []wantErr{{0, "colour"}}},
		{"wrong version", `{"version":2,"title":"t","events":[]}`, []wantErr{{0, "version"}}},
		{"missing version, title and events", `{}`, []wantErr{{0, "version"}, {0, "title"}, {0, "events"}}},
		{"empty title", `{"version":1,"title":"","events":[]}`, []wantErr{{0, "title"}}},
		{"title not UTF-8", "{\"version\":1,\"title\":\"\xff\xfe\",\"events\":[]}", []wantErr{{0, "title"}}},
		{"value not UTF-8", wrap(ok, "{\"actor\":\"A\",\"kind\":\"write\",\"value\":\"v\xc3\"}"), []wantErr{{2, "value"}}},
		{"title too long", `{"version":1,"title":"` + strings.Repeat("x", 121) + `","events":[]}`, []wantErr{{0, "title"}}},
		{"description too long", `{"version":1,"title":"t","description":"` + strings.Repeat("é", 4001) + `","events":[]}`, []wantErr{{0, "description"}}},
		{"unknown event field", wrap(ok, `{"actor":"A","kind":"read","colour":1}`), []wantErr{{2, "colour"}}},
		{"field the kind does not take", wrap(`{"actor":"A","kind":"acquire","value":"v"}`), []wantErr{{1, "value"}}},
		{"unknown kind", wrap(`{"actor":"A","kind":"sleep"}`), []wantErr{{1, "kind"}}},
		{"missing kind", wrap(`{"actor":"A"}`), []wantErr{{1, "kind"}}},
		{"missing actor", wrap(`{"kind":"pause"}`), []wantErr{{1, "actor"}}},
		{"missing value", wrap(ok, `{"actor":"A","kind":"write"}`), []wantErr{{2, "value"}}},
		{"missing send id", wrap(ok, `{"actor":"A","kind":"send","value":"v"}`), []wantErr{{2, "id"}}},
		{"bad actor name", wrap(`{"actor":"A B","kind":"pause"}`), []wantErr{{1, "actor"}}},
		{"actor name too long", wrap(`{"actor":"` + strings.Repeat("a", 17) + `","kind":"pause"}`), []wantErr{{1, "actor"}}},
		{"token not an integer", wrap(`{"actor":"A","kind":"acquire","token":4.5}`), []wantErr{{1, "token"}}},
		{"token beyond 64 bits", wrap(`{"actor":"A","kind":"acquire","token":9223372036854775808}`), []wantErr{{1, "token"}}},
		{"value too long", wrap(ok, `{"actor":"A","kind":"write","value":"`+strings.Repeat("v", 201)+`"}`), []wantErr{{2, "value"}}},
		{"note too long", wrap(`{"actor":"A","kind":"pause","note":"` + strings.Repeat("n", 201) + `"}`), []wantErr{{1, "note"}}},
		{"duplicate send id", wrap(ok, `{"actor":"A","kind":"send","id":"r","value":"v"}`, `{"actor":"A","kind":"send","id":"r","value":"w"}`), []wantErr{{3, "id"}}},
		{"deliver of no send", wrap(`{"kind":"deliver","request":"r9"}`), []wantErr{{1, "request"}}},
		{"commit of no send", wrap(`{"kind":"commit","request":"r9"}`), []wantErr{{1, "request"}}},
		{"deliver takes no actor", wrap(ok, `{"actor":"A","kind":"send","id":"r","value":"v"}`, `{"actor":"A","kind":"deliver","request":"r"}`), []wantErr{{3, "actor"}}},
		{"undeclared scope", wrap(`{"actor":"A","kind":"acquire","scope":"other"}`), []wantErr{{1, "scope"}}},
		{"undeclared resource", wrap(ok, `{"actor":"A","kind":"write","value":"v","resource":"db"}`), []wantErr{{2, "resource"}}},
		{"restart of an undeclared resource", wrap(`{"kind":"restart","resource":"db"}`), []wantErr{{1, "resource"}}},
		{"scope required among several", `{"version":1,"title":"t","scopes":{"a":{},"b":{}},"events":[` + ok + `]}`, []wantErr{{1, "scope"}}},
		{"resource required among several", `{"version":1,"title":"t","resources":{"a":{},"b":{}},"events":[` + ok + `,{"actor":"A","kind":"write","value":"v"}]}`, []wantErr{{2, "resource"}}},
		{"empty scopes", `{"version":1,"title":"t","scopes":{},"events":[]}`, []wantErr{{0, "scopes"}}},
		{"bad remember", `{"version":1,"title":"t","resources":{"r":{"remember":"disk"}},"events":[]}`, []wantErr{{0, "resources.r.remember"}}},
		{"unknown scope field", `{"version":1,"title":"t","scopes":{"job":{"first":1}},"events":[]}`, []wantErr{{0, "scopes.job.first"}}},
		{"event not an object", wrap(`"acquire"`), []wantErr{{1, "event"}}},
		{"split on a write", wrap(ok, `{"actor":"A","kind":"write","value":"v","split":true}`), []wantErr{{2, "split"}}},
		{"split false on a check", wrap(`{"actor":"A","kind":"check","split":false}`), []wantErr{{1, "split"}}},
		{"rmw on an acquire", wrap(`{"actor":"A","kind":"acquire","rmw":true}`), []wantErr{{1, "rmw"}}},
		{"rmw on a read", wrap(`{"actor":"A","kind":"read","rmw":false}`), []wantErr{{1, "rmw"}}},
		{"rmw not a bool", wrap(ok, `{"actor":"A","kind":"write","value":"v","rmw":"yes"}`), []wantErr{{2, "rmw"}}},
		{"split null", wrap(`{"actor":"A","kind":"acquire","split":null}`), []wantErr{{1, "split"}}},
		{"split a number", wrap(`{"actor":"A","kind":"acquire","split":1}`), []wantErr{{1, "split"}}},
		{"restart of neither", wrap(`{"kind":"restart"}`), []wantErr{{1, "resource"}}},
		{"restart of both", wrap(`{"kind":"restart","resource":"result","scope":"job"}`), []wantErr{{1, "scope"}}},
		{"restart of an undeclared scope", wrap(`{"kind":"restart","scope":"lock"}`), []wantErr{{1, "scope"}}},
		{"restart takes no actor", wrap(`{"kind":"restart","scope":"job","actor":"A"}`), []wantErr{{1, "actor"}}},
		{"write under an undeclared scope", wrap(ok, `{"actor":"A","kind":"write","value":"v","scope":"lock"}`), []wantErr{{2, "scope"}}},
		{"send under an undeclared scope", wrap(ok, `{"actor":"A","kind":"send","id":"r","value":"v","scope":"lock"}`), []wantErr{{2, "scope"}}},
		{"check of an undeclared scope", wrap(ok, `{"actor":"A","kind":"check","scope":"lock"}`), []wantErr{{2, "scope"}}},
		{"read of an undeclared resource", wrap(ok, `{"actor":"A","kind":"read","resource":"db"}`), []wantErr{{2, "resource"}}},
		{"bad scope remember", `{"version":1,"title":"t","scopes":{"job":{"remember":"disk"}},"events":[]}`, []wantErr{{0, "scopes.job.remember"}}},
		{"scope remember not a string", `{"version":1,"title":"t","scopes":{"job":{"remember":true}},"events":[]}`, []wantErr{{0, "scopes.job.remember"}}},
		{"bad keys", `{"version":1,"title":"t","resources":{"r":{"keys":"forever"}},"events":[]}`, []wantErr{{0, "resources.r.keys"}}},
		{"bad tokens", `{"version":1,"title":"t","resources":{"r":{"tokens":"per-actor"}},"events":[]}`, []wantErr{{0, "resources.r.tokens"}}},
		{"unknown resource field", `{"version":1,"title":"t","resources":{"r":{"key":"memory"}},"events":[]}`, []wantErr{{0, "resources.r.key"}}},
		{"too many events", wrap(strings.Repeat(`{"actor":"A","kind":"read"},`, 500) + ok), []wantErr{{0, "events"}}},
		{"too many scopes", `{"version":1,"title":"t","scopes":{` + numbered(`"s%d":{}`, 9) + `},"events":[]}`, []wantErr{{0, "scopes"}}},
		{"too many resources", `{"version":1,"title":"t","resources":{` + numbered(`"r%d":{}`, 9) + `},"events":[]}`, []wantErr{{0, "resources"}}},
		{"too many actors", wrap(numbered(`{"actor":"a%d","kind":"read"}`, 17)), []wantErr{{0, "events"}}},
		{"several errors at once", wrap(`{"actor":"A","kind":"sleep"}`, `{"actor":"A","kind":"acquire","token":"x"}`, `{"kind":"deliver","request":"nope"}`),
			[]wantErr{{1, "kind"}, {2, "token"}, {3, "request"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tt.src))
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Parse(%.80s) error = %v, want a *ValidationError", tt.src, err)
			}
			var got []wantErr
			for _, fe := range ve.Errors {
				got = append(got, wantErr{fe.Index, fe.Field})
				if fe.Message == "" {
					t.Errorf("Parse(%.80s) error %+v has no message", tt.src, fe)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("Parse(%.80s) errors = %v, want %v (%v)", tt.src, got, tt.want, err)
			}
		})
	}
}

func numbered(format string, n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf(format, i)
	}
	return strings.Join(parts, ",")
}

func TestParseSyntaxErrors(t *testing.T) {
	t.Parallel()
	for _, src := range []string{``, `{`, `{"version":1,}`, `{"version":1} {"version":1}`, `nul`} {
		_, err := Parse(strings.NewReader(src))
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Parse(%q) error = %v, want a *SyntaxError", src, err)
		}
	}
}

func TestParseDefaults(t *testing.T) {
	t.Parallel()
	s, err := Parse(strings.NewReader(`{"version":1,"title":"t","events":[
		{"actor":"A","kind":"acquire"},{"actor":"A","kind":"write","value":"v"},{"actor":"A","kind":"write","value":"w","token":null}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Scopes["job"].FirstToken; len(s.Scopes) != 1 || got != 1 {
		t.Errorf("default scopes = %v, want job with first_token 1", s.Scopes)
	}
	if r := s.Resources["result"]; len(s.Resources) != 1 || !r.Fencing || r.Remember != Durable {
		t.Errorf("default resources = %v, want result, fencing, durable", s.Resources)
	}
	if s.Events[0].Scope != "job" || s.Events[1].Resource != "result" {
		t.Errorf("defaults on events = %+v, %+v, want scope job and resource result", s.Events[0], s.Events[1])
	}
	if !s.Events[2].TokenNull || s.Events[1].TokenNull {
		t.Errorf("explicit null token not kept apart from an absent one: %+v %+v", s.Events[1], s.Events[2])
	}
	tr := Replay(s)
	if tok := tr.Steps[2].Token; tok != nil {
		t.Errorf("step 3 token = %d, want null for an explicit null", *tok)
	}
	if d := tr.Steps[2].Outcomes.Of(Fenced).Decision; d != Rejected {
		t.Errorf("a write with token null under fenced = %s, want rejected", d)
	}
}

// TestCanonicalRoundTrip: the JSON of a parsed scenario parses back to the
// same scenario, so a saved run can be replayed again.
func TestCanonicalRoundTrip(t *testing.T) {
	t.Parallel()
	src := `{"version":1,"title":"<b>t</b>","scopes":{"job":{"first_token":-3}},"resources":{"r":{"fencing":false,"remember":"memory"}},
		"events":[{"actor":"A","kind":"acquire","token":9223372036854775807},{"actor":"A","kind":"send","id":"x","value":"","token":null,"op":"k"},
		{"kind":"deliver","request":"x"},{"kind":"restart","resource":"r"}]}`
	s, err := Parse(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	b1, err := marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := Parse(strings.NewReader(string(b1)))
	if err != nil {
		t.Fatalf("Parse(canonical %s): %v", b1, err)
	}
	b2, _ := marshal(s2)
	if string(b1) != string(b2) {
		t.Errorf("canonical JSON changed on a round trip:\n%s\n%s", b1, b2)
	}
}

// TestEventJSONRoundTrip: a trace read back with encoding/json (as a saved
// run is) keeps an explicit null token apart from an absent one.
func TestEventJSONRoundTrip(t *testing.T) {
	t.Parallel()
	s, err := Parse(strings.NewReader(`{"version":1,"title":"t","events":[
		{"actor":"A","kind":"acquire","token":-7},{"actor":"A","kind":"write","value":"v","token":null},{"actor":"A","kind":"write","value":"w"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want, err := marshal(Replay(s))
	if err != nil {
		t.Fatal(err)
	}
	var back Trace
	if err := json.Unmarshal(want, &back); err != nil {
		t.Fatalf("json.Unmarshal(trace): %v", err)
	}
	if !back.Steps[1].Event.TokenNull || back.Steps[2].Event.TokenNull || *back.Steps[0].Event.Token != -7 {
		t.Errorf("events read back = %+v, %+v, %+v; want the explicit null kept apart", back.Steps[0].Event, back.Steps[1].Event, back.Steps[2].Event)
	}
	got, _ := marshal(&back)
	if string(got) != string(want) {
		t.Errorf("trace JSON changed on a round trip through encoding/json:\n%s\n%s", want, got)
	}
}
