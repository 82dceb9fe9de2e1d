package lab

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// TestCodecRoundTrip walks random orderings of random scenarios, as the
// explorer does, and checks its state keys at every step: a key loaded
// into a fresh replayer writes back the same key, and stepping on from a
// loaded key gives the same key as a replayer that ran the whole ordering
// without ever being loaded. So the key holds everything the decisions
// read, and the loader reads what the encoder wrote.
func TestCodecRoundTrip(t *testing.T) {
	t.Parallel()
	n := 2000
	if testing.Short() {
		n = 150
	}
	rng := rand.New(rand.NewPCG(10, 10))
	for i := range n {
		s, err := reparse(genSmall(rng))
		if err != nil {
			t.Fatalf("generated scenario %d does not parse: %v", i, err)
		}
		for _, w := range []Writes{WritesSplit, WritesAtomic} {
			checkRoundTrip(t, rng, exploredScenario(s, explored(s, w)))
		}
	}
}

func checkRoundTrip(t *testing.T, rng *rand.Rand, s *Scenario) {
	t.Helper()
	loaded, straight, fresh := newReplayer(s), newReplayer(s), newReplayer(s)
	for _, r := range []*replayer{loaded, straight, fresh} {
		r.quiet = true
	}
	c := newCodec(loaded.pr, numPolicies)
	order := newPartialOrder(loaded.pr, ExpiryFree)
	key := c.encode(nil, loaded, make([]byte, c.placedLen), -1, 0)
	var v violated
	for depth := range len(loaded.pr.events) {
		var ready []int
		for e := range len(loaded.pr.events) {
			if order.ready(key, e) {
				ready = append(ready, e)
			}
		}
		if len(ready) == 0 {
			t.Fatalf("%s: no event ready after %d of %d", eventsOf(s), depth, len(loaded.pr.events))
		}
		checkSiblings(t, s, c, key, ready, v)
		e := ready[rng.IntN(len(ready))]
		c.load(loaded, key)
		loaded.step(e)
		for p := range loaded.lanes {
			for _, vi := range loaded.lanes[p].violations {
				v |= 1 << (p*bitsPerPolicy + int(bitOf(vi)))
			}
		}
		next := c.encode(nil, loaded, key, e, v)

		straight.placed = key[:c.placedLen] // what has run, as the explorer tells the replayer
		straight.step(e)
		if got := c.encode(nil, straight, key, e, v); !bytes.Equal(got, next) {
			t.Fatalf("%s: after event %d at depth %d, a replayer loaded from keys and one never loaded differ:\n loaded %x\n never  %x",
				eventsOf(s), e, depth, next, got)
		}
		c.load(fresh, next)
		if got := c.encode(nil, fresh, next[:c.placedLen], -1, c.violatedOf(next)); !bytes.Equal(got, next) {
			t.Fatalf("%s: after event %d at depth %d, key %x loads and writes back as %x", eventsOf(s), e, depth, next, got)
		}
		key = next
	}
}

func eventsOf(s *Scenario) string {
	b, _ := json.Marshal(s.Events)
	return string(b)
}

// checkSiblings steps every event ready after key as a stepper does, one
// after another from one loaded replayer, restoring only the lanes the
// last step changed and copying the others' part of the key, and checks
// each key against a fresh replayer loaded from key, stepped and encoded
// whole.
func checkSiblings(t *testing.T, s *Scenario, c *codec, key []byte, ready []int, v violated) {
	t.Helper()
	from, r, fresh := newReplayer(s), newReplayer(s), newReplayer(s)
	for _, x := range []*replayer{from, r, fresh} {
		x.quiet = true
	}
	at := c.load(from, key)
	var changed [numPolicies]bool
	for li := range changed {
		changed[li] = true
	}
	for _, e := range ready {
		c.restore(r, from, &changed)
		r.step(e)
		for li := range changed {
			changed[li] = r.lanes[li].touched
		}
		got := c.encodeFrom(nil, r, key, e, v, &at, &changed)
		c.load(fresh, key)
		fresh.step(e)
		if want := c.encode(nil, fresh, key, e, v); !bytes.Equal(got, want) {
			t.Fatalf("%s: event %d after key %x: stepped from a restored replayer %x, from a fresh one %x", eventsOf(s), e, key, got, want)
		}
	}
}
