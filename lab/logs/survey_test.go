package logs

import (
	"strings"
	"testing"

	"fencelab/lab"
)

// TestSuggestExample checks that a survey of the walkthrough's logs
// suggests the walkthrough's mapping, but for the values the words do not
// say.
func TestSuggestExample(t *testing.T) {
	_, files := exampleFiles(t)
	s := NewSurvey()
	for _, f := range files {
		s.Add(f.name, strings.NewReader(f.text), "")
	}
	if got := s.Formats; len(got) != 4 || got[0] != JSONL || got[1] != Logfmt || got[3] != CSV {
		t.Errorf("Survey formats = %v, want jsonl logfmt logfmt csv", got)
	}
	m := s.Suggest()
	got := []string{m.Time, m.Actor, m.KindField, m.Token, m.Scope, m.Resource, m.Value, m.Request, m.Host, m.ObservedField}
	want := []string{"ts", "worker", "msg", "generation", "job_id", "resource", "result", "request_id", "host", "outcome"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("Suggest() fields = %v, want %v", got, want)
	}
	for v, k := range map[string]lab.Kind{"lease granted": lab.Acquire, "write sent": lab.Send, "write received": lab.Deliver, "gc pause": lab.Pause, "resumed": lab.Resume, "lease expired": lab.Expire} {
		if m.Kinds[v] != k {
			t.Errorf("Suggest() kind of %q = %q, want %q", v, m.Kinds[v], k)
		}
	}
	if m.Outcomes["accepted"] != Applied {
		t.Errorf("Suggest() outcome of accepted = %q, want applied", m.Outcomes["accepted"])
	}
}
