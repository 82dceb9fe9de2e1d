package lab_test

import (
	"encoding/json"
	"fmt"
	"math/rand"
)

// refGen builds a random, valid scenario as JSON, for TestReferenceModel.
// Everything comes from the seeded r: the same seed gives the same scenario.
func refGen(r *rand.Rand) string {
	type obj = map[string]any
	sc := obj{"version": 1, "title": "random", "description": "generated"}

	// Scopes: the default, or 1-2 declared ones with assorted first tokens.
	firsts := []int64{1, 41, -2, 0, 9223372036854775800}
	var scopes []string
	var scopeFirst = map[string]int64{}
	nScopes := 1 + r.Intn(2)
	if nScopes == 1 && r.Intn(2) == 0 {
		scopes = []string{"job"}
		scopeFirst["job"] = 1
	} else {
		decl := obj{}
		for i := 0; i < nScopes; i++ {
			name := []string{"job", "s2"}[i]
			scopes = append(scopes, name)
			f := firsts[r.Intn(len(firsts)-1)]
			if r.Intn(60) == 0 {
				f = firsts[len(firsts)-1]
			}
			scopeFirst[name] = f
			if r.Intn(4) == 0 && f == 1 {
				decl[name] = obj{}
			} else {
				decl[name] = obj{"first_token": f}
			}
		}
		sc["scopes"] = decl
	}

	// Resources: the default, or 1-2 declared ones.
	var resources []string
	nRes := 1 + r.Intn(2)
	if nRes == 1 && r.Intn(2) == 0 {
		resources = []string{"result"}
	} else {
		decl := obj{}
		for i := 0; i < nRes; i++ {
			name := []string{"result", "mail"}[i]
			resources = append(resources, name)
			d := obj{}
			switch r.Intn(3) {
			case 0:
				d["fencing"] = false
			case 1:
				d["fencing"] = true
			}
			switch r.Intn(3) {
			case 0:
				d["remember"] = "memory"
			case 1:
				d["remember"] = "durable"
			}
			decl[name] = d
		}
		sc["resources"] = decl
	}

	actors := []string{"A", "B", "C", "D"}[:1+r.Intn(4)]
	nEvents := 1 + r.Intn(25)
	kinds := []string{
		"acquire", "acquire", "acquire", "write", "write", "write", "send", "send",
		"deliver", "deliver", "commit", "commit", "expire", "expire", "release",
		"renew", "check", "check", "pause", "pause", "resume", "resume", "crash",
		"restart", "read",
	}
	pickScope := func() string { return scopes[r.Intn(len(scopes))] }
	token := func() int64 {
		return scopeFirst[pickScope()] + int64(r.Intn(8)) - 2
	}
	var events []obj
	sends := 0
	sent := map[string]bool{}
	for len(events) < nEvents {
		k := kinds[r.Intn(len(kinds))]
		e := obj{"kind": k}
		actor := actors[r.Intn(len(actors))]
		switch k {
		case "deliver", "commit":
			id := fmt.Sprintf("r%d", 1+r.Intn(sends+2))
			e["request"] = id
		case "restart":
			e["resource"] = resources[r.Intn(len(resources))]
		default:
			e["actor"] = actor
		}
		switch k {
		case "acquire", "expire", "renew", "release":
			if len(scopes) > 1 || r.Intn(3) == 0 {
				e["scope"] = pickScope()
			}
			if k == "acquire" && r.Intn(6) == 0 {
				e["token"] = token()
			}
		case "write", "send":
			e["value"] = fmt.Sprintf("v%d", len(events)+1)
			if len(resources) > 1 || r.Intn(3) == 0 {
				e["resource"] = resources[r.Intn(len(resources))]
			}
			if r.Intn(3) == 0 {
				e["op"] = []string{"o1", "o2"}[r.Intn(2)]
			}
			switch r.Intn(8) {
			case 0:
				e["token"] = token()
			case 1:
				e["token"] = nil
			}
			if k == "send" {
				sends++
				id := fmt.Sprintf("r%d", sends)
				e["id"] = id
				sent[id] = true
			}
		}
		if r.Intn(10) == 0 {
			e["note"] = "a note"
		}
		events = append(events, e)
	}
	// Every deliver and commit must name a send: add the missing sends at
	// random places, possibly after the deliver that names them.
	for i := 0; i < len(events); i++ {
		id, ok := events[i]["request"].(string)
		if !ok || sent[id] {
			continue
		}
		sent[id] = true
		s := obj{"kind": "send", "actor": actors[r.Intn(len(actors))], "id": id,
			"value": "late-" + id}
		if len(resources) > 1 {
			s["resource"] = resources[r.Intn(len(resources))]
		}
		if r.Intn(3) == 0 {
			s["op"] = "o1"
		}
		at := r.Intn(len(events) + 1)
		events = append(events[:at], append([]obj{s}, events[at:]...)...)
		if at <= i {
			i++
		}
	}
	sc["events"] = events
	b, err := json.Marshal(sc)
	if err != nil {
		panic(err)
	}
	return string(b)
}
