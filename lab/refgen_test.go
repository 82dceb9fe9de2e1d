package lab_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"fencelab/lab"
)

// refGen builds a random, valid scenario as JSON, for TestReferenceModel.
// Everything comes from the seeded r: the same seed gives the same scenario.
// One scenario in ten is wide: more scopes, resources, actors and events.
func refGen(r *rand.Rand) string {
	type obj = map[string]any
	wide := r.Intn(10) == 0
	names := []string{"job", "s2", "s3", "s4"}
	maxScopes, maxRes, maxActors, maxEvents := 2, 2, 4, 25
	if wide {
		maxScopes, maxRes, maxActors, maxEvents = 4, 4, 8, 80
	}
	sc := obj{"version": 1, "title": "random", "description": "generated"}

	// Scopes: the default, or 1-2 declared ones with assorted first tokens.
	firsts := []int64{1, 41, -2, 0, 9223372036854775800}
	var scopes []string
	var scopeFirst = map[string]int64{}
	nScopes := 1 + r.Intn(maxScopes)
	if nScopes == 1 && r.Intn(2) == 0 {
		scopes = []string{"job"}
		scopeFirst["job"] = 1
	} else {
		decl := obj{}
		for i := 0; i < nScopes; i++ {
			name := names[i]
			scopes = append(scopes, name)
			f := firsts[r.Intn(len(firsts)-1)]
			if r.Intn(60) == 0 {
				f = firsts[len(firsts)-1]
			}
			scopeFirst[name] = f
			d := obj{}
			if r.Intn(4) != 0 || f != 1 {
				d["first_token"] = f
			}
			if m := r.Intn(6); m < 2 {
				d["remember"] = []string{"memory", "durable"}[m] // model 3
			}
			decl[name] = d
		}
		sc["scopes"] = decl
	}

	// Resources: the default, or 1-2 declared ones.
	var resources []string
	nRes := 1 + r.Intn(maxRes)
	if nRes == 1 && r.Intn(2) == 0 {
		resources = []string{"result"}
	} else {
		decl := obj{}
		for i := 0; i < nRes; i++ {
			name := []string{"result", "mail", "pay", "log"}[i]
			resources = append(resources, name)
			d := obj{} // each field absent, or one of its values
			if f := r.Intn(3); f < 2 {
				d["fencing"] = f == 1
			}
			if f := r.Intn(3); f < 2 {
				d["remember"] = []string{"memory", "durable"}[f]
			}
			if f := r.Intn(5); f < 2 {
				d["keys"] = []string{"memory", "durable"}[f] // model 3
			}
			if f := r.Intn(5); f < 2 {
				d["tokens"] = []string{"per-scope", "shared"}[f]
			}
			decl[name] = d
		}
		sc["resources"] = decl
	}

	actors := []string{"A", "B", "C", "D", "w-1", "w_2", "x", "Y9"}[:1+r.Intn(maxActors)]
	// Two scenarios in three use the additions of model 3 in events; the
	// rest are model-2 timelines (but for the declarations).
	rich := r.Intn(3) != 0
	nEvents := 1 + r.Intn(maxEvents)
	// Each scenario draws its own mix of kinds, so that some are dense in
	// leases, others in requests, pauses or restarts.
	all := []string{"acquire", "read", "pause", "resume", "expire", "renew", "release",
		"check", "write", "send", "deliver", "commit", "restart", "crash"}
	var kinds []string
	for _, k := range all {
		w := r.Intn(5)
		if k == "crash" {
			w = r.Intn(2)
		}
		if k == "acquire" || k == "write" {
			w++
		}
		for j := 0; j < w; j++ {
			kinds = append(kinds, k)
		}
	}
	pickScope := func() string { return scopes[r.Intn(len(scopes))] }
	token := func() any {
		switch r.Intn(40) {
		case 0:
			return int64(math.MinInt64)
		case 1:
			return int64(math.MaxInt64)
		}
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
			id := fmt.Sprintf("r%d", 1+r.Intn(sends+1))
			if r.Intn(4) == 0 {
				id = fmt.Sprintf("r%d", 1+r.Intn(sends+3))
			}
			e["request"] = id
		case "restart":
			if r.Intn(3) == 0 {
				e["scope"] = pickScope() // model 3
			} else {
				e["resource"] = resources[r.Intn(len(resources))]
			}
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
				if r.Intn(5) == 0 {
					e["token"] = nil // the issuer's next token
				}
			}
			if k == "acquire" && rich && r.Intn(4) == 0 {
				e["split"] = r.Intn(6) != 0 // model 3; false now and then
			}
		case "read", "check":
			if rich && r.Intn(2) == 0 {
				if k == "read" {
					e["resource"] = resources[r.Intn(len(resources))]
				} else {
					e["scope"] = pickScope()
				}
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
			if rich && r.Intn(3) == 0 {
				e["scope"] = pickScope() // model 3
			}
			if rich && r.Intn(2) == 0 {
				e["rmw"] = r.Intn(6) != 0
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

// refTally counts what the engine decided, to show what the generator covers.
func refTally(s *lab.Scenario, tally map[string]int) {
	tr := lab.Replay(s)
	for _, st := range tr.Steps {
		for _, p := range lab.Policies() {
			tally[fmt.Sprintf("%-18s %-8s %s", p, st.Event.Kind, st.Outcomes.Of(p).Decision)]++
		}
	}
	for _, p := range lab.Policies() {
		for _, v := range tr.Summary[p].Violations {
			tally[fmt.Sprintf("%-18s violation %s %s", p, v.Kind, v.Class)]++
		}
	}
}

// refCompare returns the disagreements between the engine and the model.
func refCompare(s *lab.Scenario) []string {
	tr := lab.Replay(s)
	m := newRefModel(s)
	steps := m.run()
	var diffs []string
	add := func(i int, e lab.Event, f string, args ...any) {
		diffs = append(diffs, fmt.Sprintf("step %d (%s): ", i+1, e.Kind)+fmt.Sprintf(f, args...))
	}
	for i, st := range tr.Steps {
		ms, e := steps[i], st.Event
		if refStr(st.Token) != refStr(ms.token) {
			add(i, e, "token engine %s model %s", refStr(st.Token), refStr(ms.token))
		}
		if (st.Warning != "") != (ms.dec[0] == lab.Skipped) {
			add(i, e, "warning %q but model skipped=%v", st.Warning, ms.dec[0] == lab.Skipped)
		}
		if (e.Kind == lab.Write || e.Kind == lab.Send) && ms.dec[0] != lab.Skipped {
			id := e.ID
			if e.Kind == lab.Write {
				id = "#" + strconv.Itoa(i+1)
			}
			if e.Scope != ms.scope || refStr(e.Token) != refStr(ms.token) || e.ID != id {
				add(i, e, "event engine scope %q token %s id %q, model %q %s %q", e.Scope, refStr(e.Token), e.ID, ms.scope, refStr(ms.token), id)
			}
		}
		if w := s.Events[i]; (e.Kind == lab.Read || e.Kind == lab.Check) && (e.Scope != w.Scope || e.Resource != w.Resource) {
			add(i, e, "event filled in: %+v, written %+v", e, w)
		}
		for p, pol := range lab.Policies() {
			o := st.Outcomes.Of(pol)
			if o.Decision != ms.dec[p] {
				add(i, e, "%s: engine %s (%q) model %s", pol, o.Decision, o.Reason, ms.dec[p])
			}
			a := refMap(o.Values) + " " + refMap(o.Tokens)
			if b := refMap(ms.values[p]) + " " + refMap(ms.tokens[p]); a != b {
				add(i, e, "%s: values engine %s model %s", pol, a, b)
			}
			if a, b := fmt.Sprint(o.Versions), fmt.Sprint(ms.versions[p]); a != b {
				add(i, e, "%s: versions engine %s model %s", pol, a, b)
			}
		}
	}
	for p, pol := range lab.Policies() {
		sum := tr.Summary[pol]
		if a, b := refViol(sum.Violations), refViol(m.lanes[p].viol); a != b {
			diffs = append(diffs, fmt.Sprintf("%s violations: engine [%s] model [%s]", pol, a, b))
		}
		if a, b := sum.Worst(), refWorst(m.lanes[p].viol); a != b {
			diffs = append(diffs, fmt.Sprintf("%s worst: engine %q model %q", pol, a, b))
		}
		final := map[string]*string{}
		for name, r := range m.lanes[p].res {
			final[name] = r.value
		}
		if a, b := refMap(sum.Final), refMap(final); a != b {
			diffs = append(diffs, fmt.Sprintf("%s final: engine %s model %s", pol, a, b))
		}
	}
	return diffs
}

// TestReferenceModel compares the engine with the model on the built-in
// scenarios and on REF_N (default 20,000; 500 under -short) random ones.
func TestReferenceModel(t *testing.T) {
	t.Parallel()
	var inputs []string
	files, _ := filepath.Glob("../scenarios/*.json")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, string(b))
	}
	inputs = append(inputs, `{"version":1,"title":"blank","resources":{"a":{},"b":{"fencing":false}},"events":[]}`)
	n := 20000
	if testing.Short() {
		n = 200 // a sample for the inner loop; .ci/run runs all 20,000
	}
	if v, err := strconv.Atoi(os.Getenv("REF_N")); err == nil {
		n = v
	}
	for seed := 0; seed < n; seed++ {
		inputs = append(inputs, refGen(rand.New(rand.NewSource(int64(seed)))))
	}
	shown, tally := 0, map[string]int{}
	for i, js := range inputs {
		s, err := lab.Parse(strings.NewReader(js))
		if err != nil {
			t.Fatalf("input %d: invalid scenario: %v\n%s", i, err, js)
		}
		refTally(s, tally)
		if d := refCompare(s); len(d) > 0 {
			if shown < 5 {
				var c bytes.Buffer
				json.Compact(&c, []byte(js))
				t.Errorf("input %d (seed %d): %s\n  %s", i, i-len(files)-1, c.String(), strings.Join(d, "\n  "))
			}
			shown++
		}
	}
	if testing.Verbose() {
		for _, k := range lab.SortedNames(tally) {
			t.Logf("%7d %s", tally[k], k)
		}
	}
	if shown > 0 {
		t.Errorf("%d of %d scenarios disagree with the reference model", shown, len(inputs))
	}
}

func refStr[T any](p *T) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
}

func refMap[T any](mp map[string]*T) string {
	var parts []string
	for _, k := range lab.SortedNames(mp) {
		parts = append(parts, k+"="+refStr(mp[k]))
	}
	return strings.Join(parts, ",")
}

func refViol(vs []lab.Violation) string {
	var parts []string
	for _, v := range vs {
		parts = append(parts, fmt.Sprintf("%d:%s:%s", v.Step, v.Kind, v.Class))
	}
	slices.Sort(parts)
	return strings.Join(parts, " ")
}

// refWorst is the most severe class among vs, by the spec's order.
func refWorst(vs []lab.Violation) lab.Class {
	for _, c := range []lab.Class{lab.Corrupting, lab.Refusing, lab.Deposed, lab.Overrun} {
		for _, v := range vs {
			if v.Class == c {
				return c
			}
		}
	}
	return ""
}
