package views

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"fencelab/lab"
)

// TestKindFieldsMatchTheEngine keeps the editor's table of fields per
// kind in step with lab.Parse: a card offers a field exactly when the
// engine takes it on that kind.
func TestKindFieldsMatchTheEngine(t *testing.T) {
	sample := map[string]any{"actor": "A", "scope": "job", "resource": "result", "value": "v",
		"id": "x", "request": "x", "op": "o", "token": 1}
	for _, k := range lab.Kinds {
		for _, f := range EventFieldNames {
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
			if got, want := Takes(k, f), !rejected; got != want {
				t.Errorf("Takes(%s, %s) = %v, but lab.Parse takes it: %v", k, f, got, want)
			}
		}
	}
}

func TestDraftLocate(t *testing.T) {
	d := Draft{
		Scopes:    []DraftScope{{Name: "job"}, {Name: "other"}},
		Resources: []DraftResource{{Name: "result"}},
		Events:    []DraftEvent{{Kind: lab.Acquire, Actor: "A"}, {Kind: lab.Deliver, Request: "m9"}},
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
		got := d.locate(tt.fe)
		if got.Control != tt.control || got.Card != tt.card {
			t.Errorf("locate(%+v) = control %q card %d, want %q %d", tt.fe, got.Control, got.Card, tt.control, tt.card)
		}
	}
}
