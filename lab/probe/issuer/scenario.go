package issuer

import (
	"fmt"
	"slices"
	"strings"

	"fencelab/lab"
)

// Scenario turns the run into a lab scenario (-o, --save): the workers
// are the actors, one scope named after the lock, one resource "result".
// Each grant is an acquire with its real token, each pause-holder a pause
// and resume, each acknowledged release a release; before a grant while
// the model still holds the previous lease, an inferred expire; at a
// fault or outage after which the tokens went backwards, a restart of the
// scope, declared "remember": "memory". Past lab.MaxEvents, a window
// around the first violation (else the first fault), starting at a grant.
func (r *Report) Scenario() (*lab.Scenario, error) {
	scope := scopeName(r.Lock)
	type timed struct {
		at    float64
		order int
		ev    lab.Event
	}
	var evs []timed
	add := func(at float64, order int, ev lab.Event) { evs = append(evs, timed{at, order, ev}) }
	// A restart at the latest fault or outage before each grant that went
	// backwards across it.
	latest := map[*Op]After{}
	for _, a := range r.AfterFaults {
		if a.Held != nil && !*a.Held && a.From > latest[a.first].From-1e-9 {
			latest[a.first] = a
		}
	}
	restarts := len(latest) > 0
	for _, a := range r.AfterFaults {
		if l, ok := latest[a.first]; ok && l.From == a.From && l.What == a.What {
			add(a.From, 0, lab.Event{Kind: "restart", Scope: scope,
				Note: fmt.Sprintf("%s at %s: the tokens went backwards after it", a.What, secs(a.From))})
		}
	}
	for _, f := range r.Faults {
		if f.Kind == "pause-holder" && !f.Missed {
			add(f.From, 1, lab.Event{Actor: actor(f.Target), Kind: "pause",
				Note: fmt.Sprintf("the probe stops %s (SIGSTOP) at %s", f.Target, secs(f.From))})
			add(f.To, 1, lab.Event{Actor: actor(f.Target), Kind: "resume", Note: fmt.Sprintf("SIGCONT at %s", secs(f.To))})
		}
	}
	early := map[float64]bool{}
	for _, e := range r.EarlyGrants {
		early[e.At] = true
	}
	for i := range r.history {
		op := &r.history[i]
		switch {
		case op.Op == OpAcquire && op.Result == Granted:
			tok := *op.Token
			add(op.Answered, 2, lab.Event{Actor: actor(op.Worker), Kind: "acquire", Scope: scope, Token: &tok,
				Note: fmt.Sprintf("%s is granted token %d at %s (asked at %s)", op.Worker, tok, secs(op.Answered), secs(op.Sent))})
		case op.Op == OpWrite:
			v := op.Value
			add(op.Sent, 2, lab.Event{Actor: actor(op.Worker), Kind: "write", Resource: "result", Value: &v,
				Note: fmt.Sprintf("%s writes with token %s at %s: %s", op.Worker, tokenText(op.Token), secs(op.Sent), op.Result)})
		case op.Op == OpRelease && op.Result == Released:
			add(op.Sent, 2, lab.Event{Actor: actor(op.Worker), Kind: "release", Scope: scope,
				Note: fmt.Sprintf("%s releases at %s", op.Worker, secs(op.Sent))})
		}
	}
	slices.SortStableFunc(evs, func(a, b timed) int {
		if c := cmpFloat(a.at, b.at); c != 0 {
			return c
		}
		return a.order - b.order
	})
	// The model's holder: expire it before a grant to anyone, since the
	// issuer granted the lock, so it thought the lease over.
	var out []lab.Event
	var grantIdx []int
	holder := ""
	for _, t := range evs {
		switch t.ev.Kind {
		case "restart":
			holder = ""
		case "release":
			if t.ev.Actor != holder {
				continue // released a lease the model had already expired
			}
			holder = ""
		case "acquire":
			if holder != "" {
				note := "inferred: the issuer granted the lock again, so the lease had ended"
				if early[t.at] {
					note = "inferred, early: granted before the previous lease could end"
				}
				out = append(out, lab.Event{Actor: holder, Kind: "expire", Scope: scope, Note: note})
			}
			holder = t.ev.Actor
			grantIdx = append(grantIdx, len(out))
		}
		out = append(out, t.ev)
	}
	desc := fmt.Sprintf("A run of fencelab probe --issuer against %s (%s): %d workers, TTL %g s, %d grants. %s",
		r.Issuer, r.Kind, r.Workers, r.TTL, r.Counts.Grants, r.Line())
	if len(out) > lab.MaxEvents {
		focus := 0
		if v := r.FirstViolation; v != nil {
			focus = r.eventIndexOf(out, v.Later)
		} else if len(r.Faults) > 0 {
			focus = firstAt(out, r.Faults[0].From)
		}
		start := 0
		for _, g := range grantIdx {
			if g <= focus-lab.MaxEvents/2 {
				start = g
			}
		}
		end := min(start+lab.MaxEvents, len(out))
		desc += fmt.Sprintf(" The run had %d events; this is a window of %d of them, from event %d, around the %s.",
			len(out), end-start, start+1, map[bool]string{true: "first violation", false: "first fault"}[r.FirstViolation != nil])
		out = out[start:end]
	}
	sc := &lab.Scope{FirstToken: 1}
	for _, e := range out {
		if e.Kind == "acquire" {
			sc.FirstToken = *e.Token
			break
		}
	}
	if restarts {
		sc.Remember = lab.Memory
	}
	return &lab.Scenario{Version: 1, Title: fmt.Sprintf("Issuer probe: %s, %s", r.Kind, r.Verdict),
		Description: desc,
		Scopes:      map[string]lab.Scope{scope: *sc},
		Resources:   map[string]lab.Resource{"result": {Fencing: true, Remember: lab.Durable}},
		Events:      out}, nil
}

func (r *Report) eventIndexOf(out []lab.Event, g Grant) int {
	want := fmt.Sprintf("%s is granted token %d at %s", g.Worker, g.Token, secs(g.Answered))
	for i, e := range out {
		if e.Kind == "acquire" && strings.HasPrefix(e.Note, want) {
			return i
		}
	}
	return 0
}

func firstAt(out []lab.Event, at float64) int {
	want := secs(at)
	for i, e := range out {
		if strings.Contains(e.Note, want) {
			return i
		}
	}
	return 0
}

// actor is a worker's name as the model takes it.
func actor(w string) string { return scopeName(w) }

// scopeName cuts a name to the model's characters (A-Z a-z 0-9 _ -, at
// most 32).
func scopeName(s string) string {
	var b strings.Builder
	for i := 0; i < len(s) && b.Len() < 32; i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' {
			b.WriteByte(c)
		}
	}
	if b.Len() == 0 {
		return "lock"
	}
	return b.String()
}

func tokenText(t *int64) string {
	if t == nil {
		return "none"
	}
	return fmt.Sprint(*t)
}
