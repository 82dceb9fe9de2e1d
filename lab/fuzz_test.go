package lab

import (
	"bytes"
	"errors"
	"io/fs"
	"math/rand/v2"
	"testing"

	"fencelab/scenarios"
)

// FuzzParse: any input either parses and replays to a step per event, or
// fails with a SyntaxError or a ValidationError whose every entry names
// its field. Seeded from the built-ins.
func FuzzParse(f *testing.F) {
	files, _ := fs.Glob(scenarios.FS, "*.json")
	for _, name := range files {
		b, _ := fs.ReadFile(scenarios.FS, name)
		f.Add(b)
	}
	f.Add([]byte(`{"version":1,"title":"t","events":[{"kind":"deliver","request":"x"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(bytes.NewReader(data))
		var ve *ValidationError
		var se *SyntaxError
		switch {
		case err == nil:
			if tr := Replay(s); len(tr.Steps) != len(s.Events) {
				t.Fatalf("Replay gave %d steps for %d events", len(tr.Steps), len(s.Events))
			}
		case errors.As(err, &ve):
			for _, fe := range ve.Errors {
				if fe.Field == "" || fe.Message == "" || fe.Index < 0 || fe.Index > len(data) {
					t.Fatalf("error without field or message: %+v", fe)
				}
			}
		case !errors.As(err, &se):
			t.Fatalf("Parse error %T: %v", err, err)
		}
	})
}

// FuzzReplay drives the scenario generator with fuzzed seeds: every
// generated scenario parses, replays, and keeps the fenced property.
func FuzzReplay(f *testing.F) {
	f.Add(uint64(1), uint64(2), uint8(20))
	f.Add(uint64(7), uint64(9), uint8(200))
	f.Fuzz(func(t *testing.T, a, b uint64, n uint8) {
		rng := rand.New(rand.NewPCG(a, b))
		o := genOptions{actors: 1 + int(n%4), scopes: 1, resources: 1 + int(n%2), events: 1 + int(n), memory: false}
		s, err := reparse(generate(rng, o))
		if err != nil {
			t.Fatalf("generated scenario does not parse: %v", err)
		}
		tr := Replay(s)
		if n := count(tr, Fenced, StaleOverwrite); n > 0 {
			t.Fatalf("fenced has %d stale-overwrite", n)
		}
	})
}
