package lab

import (
	"bytes"
	"io/fs"
	"math/rand/v2"
	"testing"

	"fencelab/scenarios"
)

// BenchmarkReplayPausedWorker is one full replay (all nine policies) of
// the seed's scenario.
func BenchmarkReplayPausedWorker(b *testing.B) {
	src, err := fs.ReadFile(scenarios.FS, "paused-worker.json")
	if err != nil {
		b.Fatal(err)
	}
	s, err := Parse(bytes.NewReader(src))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		Replay(s)
	}
}

// BenchmarkReplay500 replays a generated scenario of 500 events by 16
// actors, with two scopes and three resources.
func BenchmarkReplay500(b *testing.B) {
	s := big(b)
	b.ReportAllocs()
	for b.Loop() {
		Replay(s)
	}
}

// BenchmarkParse500 parses and validates the same 500-event scenario.
func BenchmarkParse500(b *testing.B) {
	src, err := marshal(big(b))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(bytes.NewReader(src)); err != nil {
			b.Fatal(err)
		}
	}
}

func big(b *testing.B) *Scenario {
	rng := rand.New(rand.NewPCG(5, 8))
	o := genOptions{actors: 16, scopes: 2, resources: 3, events: MaxEvents, tokens: true, memory: true, unfenced: true}
	s, err := reparse(generate(rng, o))
	if err != nil {
		b.Fatal(err)
	}
	actors := map[string]bool{}
	for _, e := range s.Events {
		if e.Actor != "" {
			actors[e.Actor] = true
		}
	}
	if len(s.Events) != MaxEvents || len(actors) != MaxActors {
		b.Fatalf("generated %d events by %d actors, want %d by %d", len(s.Events), len(actors), MaxEvents, MaxActors)
	}
	return s
}
