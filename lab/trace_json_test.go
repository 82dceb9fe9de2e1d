package lab

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"fencelab/scenarios"
)

// reflectJSON is what encoding/json writes for t by reflection, the
// reference AppendJSON must match byte for byte.
func reflectJSON(t *testing.T, tr *Trace) []byte {
	t.Helper()
	type plain Trace
	b, err := json.Marshal((*plain)(tr))
	if err != nil {
		t.Fatalf("json.Marshal: %v", err)
	}
	return b
}

func checkTraceJSON(t *testing.T, name string, tr *Trace) {
	t.Helper()
	want := reflectJSON(t, tr)
	if got := tr.AppendJSON(nil); !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		t.Fatalf("%s: AppendJSON differs from encoding/json at byte %d:\n got %.120q\nwant %.120q", name, i, got[i:], want[i:])
	}
	if got, _ := json.Marshal(tr); !bytes.Equal(got, want) {
		t.Fatalf("%s: json.Marshal(trace) differs from encoding/json's own", name)
	}
}

// TestTraceJSONMatchesEncodingJSON: the hand-written encoder writes the
// bytes encoding/json would, on every built-in, on random scenarios and on
// text that needs escaping.
func TestTraceJSONMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	lib, err := LoadLibrary(scenarios.FS, scenarios.Order())
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range lib.List {
		checkTraceJSON(t, b.Name, Replay(b.Scenario))
	}
	n := 2000
	if testing.Short() {
		n = 50
	}
	rng := rand.New(rand.NewPCG(7, 11))
	for i := range n {
		s := generate(rng, genOptions{actors: 1 + rng.IntN(4), scopes: 1 + rng.IntN(2), resources: 1 + rng.IntN(2),
			events: rng.IntN(30), tokens: true, memory: true, unfenced: true})
		checkTraceJSON(t, "random scenario "+string(rune('0'+i%10)), Replay(s))
	}
	hostile := []string{`<script>alert("x")</script> & ü`, "tab\tnew\nline\x00\x1b[31m", "\u2028\u2029 \xff\xfe broken", `back\slash "quoted"`, ""}
	for _, h := range hostile {
		v := h
		tok := int64(-9223372036854775808)
		s := &Scenario{Version: 1, Title: h, Scopes: map[string]Scope{"job": {FirstToken: 1}},
			Resources: map[string]Resource{"res<1>": {Fencing: true, Remember: Durable}},
			Events: []Event{
				{Actor: "A", Kind: Acquire, Scope: "job", Note: h},
				{Actor: "A", Kind: Write, Value: &v, Resource: "res<1>", Op: "k", Token: &tok, Note: h},
				{Actor: "B", Kind: Write, Value: &v, Resource: "res<1>", TokenNull: true},
			}}
		checkTraceJSON(t, "hostile "+h, Replay(s))
	}
}

func BenchmarkTraceJSON(b *testing.B) {
	lib, err := LoadLibrary(scenarios.FS, scenarios.Order())
	if err != nil {
		b.Fatal(err)
	}
	pw, _ := lib.Get("paused-worker")
	tr := Replay(pw.Scenario)
	b.Run("AppendJSON", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 0, 16<<10)
		for b.Loop() {
			buf = tr.AppendJSON(buf[:0])
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		type plain Trace
		b.ReportAllocs()
		for b.Loop() {
			json.Marshal((*plain)(tr))
		}
	})
}
