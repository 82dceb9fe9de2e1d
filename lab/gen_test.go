package lab

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
)

// genOptions shapes a random valid scenario.
type genOptions struct {
	actors, scopes, resources, events int
	tokens                            bool // explicit token overrides
	memory, unfenced                  bool // allow memory and non-fencing receivers
}

// generate builds a random scenario that Parse accepts: every send id is
// unique, and deliver and commit name existing sends (in any order, so
// some are skipped).
func generate(rng *rand.Rand, o genOptions) *Scenario {
	s := &Scenario{Version: 1, Title: "generated", Scopes: map[string]Scope{}, Resources: map[string]Resource{}}
	var scopes, resources []string
	for i := range o.scopes {
		name := fmt.Sprintf("s%d", i)
		scopes = append(scopes, name)
		s.Scopes[name] = Scope{FirstToken: int64(rng.IntN(5)) - 1}
	}
	for i := range o.resources {
		name := fmt.Sprintf("r%d", i)
		resources = append(resources, name)
		r := Resource{Fencing: !o.unfenced || rng.IntN(3) > 0, Remember: Durable}
		if o.memory && rng.IntN(2) == 0 {
			r.Remember = Memory
		}
		s.Resources[name] = r
	}
	var sends []string
	for len(s.Events) < o.events {
		s.Events = append(s.Events, genEvent(rng, o, scopes, resources, &sends))
	}
	return s
}

var genKinds = []Kind{Acquire, Acquire, Read, Pause, Resume, Expire, Renew, Release, Check, Write, Write, Send, Send, Deliver, Deliver, Commit, Restart, Crash}

func genEvent(rng *rand.Rand, o genOptions, scopes, resources []string, sends *[]string) Event {
	e := Event{Kind: genKinds[rng.IntN(len(genKinds))], Actor: fmt.Sprintf("w%d", rng.IntN(o.actors))}
	pick := func(list []string) string { return list[rng.IntN(len(list))] }
	token := func() {
		if o.tokens && rng.IntN(4) == 0 {
			t := int64(rng.IntN(8)) - 2
			e.Token = &t
		}
	}
	switch e.Kind {
	case Acquire:
		e.Scope = pick(scopes)
		token()
	case Expire, Renew, Release:
		e.Scope = pick(scopes)
	case Write, Send:
		v := fmt.Sprintf("v%d", rng.IntN(4))
		e.Value, e.Resource = &v, pick(resources)
		if rng.IntN(3) == 0 {
			e.Op = fmt.Sprintf("op%d", rng.IntN(2))
		}
		token()
		if e.Kind == Send {
			e.ID = fmt.Sprintf("q%d", len(*sends))
			*sends = append(*sends, e.ID)
		}
	case Deliver, Commit:
		e.Actor = ""
		if len(*sends) == 0 {
			v := "first"
			e.Kind, e.Actor, e.ID, e.Value, e.Resource = Send, "w0", "q0", &v, resources[0]
			*sends = append(*sends, e.ID)
			return e
		}
		e.Request = pick(*sends)
	case Restart:
		e.Actor, e.Resource = "", pick(resources)
	}
	return e
}

// reparse sends a generated scenario through Parse, as a user's would go.
func reparse(s *Scenario) (*Scenario, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	return Parse(bytes.NewReader(b))
}
