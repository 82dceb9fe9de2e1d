package lab

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// cached is a scenario with every kind of reference the program resolves:
// two scopes and two resources, sends with ids, delivers and commits, ops,
// tokens named and null.
func cached(t *testing.T) *Scenario {
	return ev(t, `"scopes":{"job":{"first_token":41},"other":{"first_token":7}},"resources":{"result":{"fencing":true},"log":{"fencing":true,"remember":"memory"}},`,
		"A acquire scope=job", "A send r1 v1 resource=result op=o1", "A expire scope=job", "B acquire scope=job",
		"B send r2 v2 resource=log", "deliver r2", "deliver r1", "commit r1", "A write v3 resource=result token=41 op=o1",
		"B write v4 resource=log token=null", "restart log", "C acquire scope=other", "A read")
}

// TestCompiledFollowsChanges changes a parsed scenario in every way that
// matters to its program, after replaying it once, and checks that the
// program Parse made no longer matches, and that Replay gives what a
// scenario compiled afresh gives. A token or value changed behind its
// pointer leaves the program matching: it keeps the pointer, not the value.
func TestCompiledFollowsChanges(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		change func(s *Scenario)
	}{
		{"first token", func(s *Scenario) { s.Scopes["job"] = Scope{FirstToken: 3} }},
		{"scope added", func(s *Scenario) { s.Scopes["aaa"] = Scope{FirstToken: 1} }},
		{"scope removed", func(s *Scenario) { delete(s.Scopes, "other"); s.Events = s.Events[:11] }},
		{"scopes replaced", func(s *Scenario) {
			s.Scopes = map[string]Scope{"job": {FirstToken: 41}, "zzz": {FirstToken: 7}}
			s.Events[11].Scope = "zzz"
		}},
		{"fencing", func(s *Scenario) { s.Resources["result"] = Resource{Fencing: false, Remember: Durable} }},
		{"memory", func(s *Scenario) { s.Resources["log"] = Resource{Fencing: true, Remember: Durable} }},
		{"resource added", func(s *Scenario) { s.Resources["aaa"] = Resource{Fencing: true, Remember: Durable} }},
		{"actor", func(s *Scenario) { s.Events[3].Actor = "C" }},
		{"kind", func(s *Scenario) { s.Events[2].Kind = Release }},
		{"scope of an event", func(s *Scenario) { s.Events[3].Scope = "other" }},
		{"resource of an event", func(s *Scenario) { s.Events[8].Resource = "log" }},
		{"token replaced", func(s *Scenario) { s.Events[8].Token = ptr(int64(42)) }},
		{"token behind its pointer", func(s *Scenario) { *s.Events[8].Token = 42 }}, // the program still matches
		{"token null", func(s *Scenario) { s.Events[8].Token, s.Events[8].TokenNull = nil, true }},
		{"token no longer null", func(s *Scenario) { s.Events[9].TokenNull = false }},
		{"value replaced", func(s *Scenario) { s.Events[1].Value = ptr("v9") }},
		{"value behind its pointer", func(s *Scenario) { *s.Events[1].Value = "v9" }}, // the program still matches
		{"op", func(s *Scenario) { s.Events[8].Op = "o2" }},
		{"send id", func(s *Scenario) { s.Events[4].ID, s.Events[5].Request = "r9", "r9" }},
		{"deliver's request", func(s *Scenario) { s.Events[6].Request, s.Events[5].Request = "r2", "r1" }},
		{"commit's request", func(s *Scenario) { s.Events[7].Request = "r2" }},
		{"event removed", func(s *Scenario) { s.Events = s.Events[:len(s.Events)-1] }},
		{"event appended", func(s *Scenario) { s.Events = append(s.Events, Event{Actor: "B", Kind: Read}) }},
		{"events replaced", func(s *Scenario) { s.Events = append([]Event(nil), s.Events[4:]...) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := cached(t)
			Replay(s)
			tt.change(s)
			behind := strings.HasSuffix(tt.name, "behind its pointer")
			if got := s.compiled.matches(s); got != behind {
				t.Errorf("matches after the change = %v, want %v", got, behind)
			}
			fresh := *s
			fresh.compiled = nil
			want := Replay(&fresh).AppendJSON(nil)
			if got := Replay(s).AppendJSON(nil); !bytes.Equal(got, want) {
				t.Errorf("Replay after the change =\n%s\nwant (compiled afresh)\n%s", got, want)
			}
		})
	}
}

// TestCompiledReused checks that an unchanged scenario is not compiled
// again, and that replaying does not change its program.
func TestCompiledReused(t *testing.T) {
	t.Parallel()
	s := cached(t)
	pr := s.compiled.pr
	want := compile(s)
	Replay(s)
	States(s)
	if got := programOf(s, &text{}); got != pr {
		t.Fatalf("programOf(unchanged scenario) compiled it again")
	}
	if got, want := fmt.Sprint(*pr), fmt.Sprint(*want); got != want {
		t.Errorf("program after replaying = %s, want %s", got, want)
	}
}

// TestReplaySharesProgram replays one parsed scenario from several
// goroutines at once, as the server does with a built-in: they share its
// program, which nothing may write (go test -race checks that), and each
// gets the trace a replay alone gives.
func TestReplaySharesProgram(t *testing.T) {
	t.Parallel()
	s := cached(t)
	want := Replay(s).AppendJSON(nil)
	got := make([][]byte, 4)
	var wg sync.WaitGroup
	for g := range got {
		wg.Go(func() {
			for range 20 {
				got[g] = Replay(s).AppendJSON(nil)
			}
		})
	}
	wg.Wait()
	for g := range got {
		if !bytes.Equal(got[g], want) {
			t.Errorf("Replay in goroutine %d =\n%s\nwant\n%s", g, got[g], want)
		}
	}
}
