package logs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"fencelab/lab"
)

// builder turns the ordered raw events into a scenario.
type builder struct {
	im     *Importer
	events []*rawEvent
	sendOf map[*rawEvent]*rawEvent // a deliver's or commit's send
	legend []Rename
	gaps   []Gap
	names  map[string]*namer
}

// matchRequests pairs each deliver and commit with its send by request:
// the first send before it not yet delivered, else the latest send
// before it (a second delivery), else the first send after it (the
// deliver's clock is behind: it moves after the send). A deliver with no
// send at all is left out, with a gap.
func (b *builder) matchRequests() {
	b.sendOf = map[*rawEvent]*rawEvent{}
	delivered := map[*rawEvent]bool{}
	var kept []*rawEvent
	var late []*rawEvent // delivers that wait for a later send
	for i, e := range b.events {
		if e.kind != lab.Deliver && e.kind != lab.Commit {
			kept = append(kept, e)
			continue
		}
		s := b.sendBefore(i, e.request, delivered, e.kind == lab.Deliver)
		if s == nil {
			s = b.sendAfter(i, e.request, delivered)
			if s == nil {
				b.gap("deliver-without-send", fmt.Sprintf("the resource logged request %q, but no send of it is in the logs: it is left out of the scenario, with its observed outcome (a worker's log may be missing)", e.request), e)
				continue
			}
			b.gap("deliver-before-send", fmt.Sprintf("the resource logged request %q %s before its send (%s): the clocks disagree by at least that much, so the deliver is placed after its send", e.request, s.at.Sub(e.at), s.source), e, s)
			late = append(late, e)
		} else {
			kept = append(kept, e)
		}
		b.sendOf[e] = s
		if e.kind == lab.Deliver {
			delivered[s] = true
		}
	}
	b.events = placeLate(kept, late, b.sendOf)
}

func (b *builder) sendBefore(i int, req string, delivered map[*rawEvent]bool, deliver bool) *rawEvent {
	var latest *rawEvent
	for _, s := range b.events[:i] {
		if !isSend(s) || s.request != req {
			continue
		}
		if deliver && !delivered[s] {
			return s
		}
		latest = s
	}
	return latest
}

func (b *builder) sendAfter(i int, req string, delivered map[*rawEvent]bool) *rawEvent {
	for _, s := range b.events[i+1:] {
		if isSend(s) && s.request == req && !delivered[s] {
			return s
		}
	}
	return nil
}

func isSend(e *rawEvent) bool { return e.kind == lab.Send }

// placeLate puts each late deliver right after its send, in input order.
func placeLate(kept, late []*rawEvent, sendOf map[*rawEvent]*rawEvent) []*rawEvent {
	if len(late) == 0 {
		return kept
	}
	out := make([]*rawEvent, 0, len(kept)+len(late))
	for _, e := range kept {
		out = append(out, e)
		for _, d := range late {
			if sendOf[d] == e {
				out = append(out, d)
			}
		}
	}
	return out
}

func (b *builder) gap(kind, words string, evs ...*rawEvent) {
	g := Gap{Kind: kind, Words: words}
	for _, e := range evs {
		g.Sources = append(g.Sources, e.source)
	}
	b.gaps = append(b.gaps, g)
}

// scenario builds, validates and compiles the scenario.
func (b *builder) scenario() (*lab.Scenario, error) {
	b.nameAll()
	s := &lab.Scenario{Version: 1, Title: b.title(), Description: b.description()}
	for _, e := range b.events {
		s.Events = append(s.Events, b.event(e))
	}
	b.declare(s)
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(s); err != nil {
		return nil, err
	}
	parsed, err := lab.Parse(&buf)
	if err != nil {
		return nil, b.explain(err)
	}
	return parsed, nil
}

// explain turns a validation error into reasons naming source lines.
func (b *builder) explain(err error) error {
	var ve *lab.ValidationError
	if !errors.As(err, &ve) {
		return &Error{Reasons: []string{err.Error()}}
	}
	var reasons []string
	for _, fe := range ve.Errors {
		where := "the imported scenario"
		if fe.Index >= 1 && fe.Index <= len(b.events) {
			where = b.events[fe.Index-1].source
		}
		reasons = append(reasons, fmt.Sprintf("%s: %s: %s", where, fe.Field, fe.Message))
	}
	return &Error{Reasons: reasons}
}

func (b *builder) title() string {
	t := "Incident from " + strings.Join(b.im.files, ", ")
	return clipRunes(t, lab.MaxTitle)
}

func (b *builder) description() string {
	var d strings.Builder
	fmt.Fprintf(&d, "Imported from %d log lines (%d events) by fencelab import.", b.im.lines, len(b.events))
	for _, r := range b.legend {
		fmt.Fprintf(&d, " %s %s is %q.", r.Field, r.Name, r.Original)
	}
	return clipRunes(d.String(), lab.MaxDescription)
}

// event is the scenario event of a line, with the fields its kind takes.
func (b *builder) event(e *rawEvent) lab.Event {
	ev := lab.Event{Kind: e.kind, Note: b.note(e)}
	switch e.kind {
	case lab.Deliver, lab.Commit:
		ev.Request = b.name("request", b.sendOf[e].sendKey())
		return ev
	case lab.Restart:
		if e.resource != "" {
			ev.Resource = b.name("resource", e.resource)
		} else {
			ev.Scope = b.name("scope", e.scope)
		}
		return ev
	}
	ev.Actor = b.name("actor", e.actor)
	switch e.kind {
	case lab.Acquire:
		ev.Scope, ev.Token = b.name("scope", e.scope), e.token
	case lab.Expire, lab.Renew, lab.Release, lab.Check:
		ev.Scope = b.name("scope", e.scope)
	case lab.Read:
		ev.Resource = b.name("resource", e.resource)
	case lab.Write, lab.Send:
		b.request(&ev, e)
	}
	return ev
}

// request fills the fields of a write or send.
func (b *builder) request(ev *lab.Event, e *rawEvent) {
	v := "?"
	if e.hasValue {
		v = clipRunes(e.value, lab.MaxValue)
	}
	ev.Value, ev.Token = &v, e.token
	ev.Scope, ev.Resource, ev.Op = b.name("scope", e.scope), b.name("resource", e.resource), b.name("op", e.op)
	if e.kind == lab.Send {
		ev.ID = b.name("request", e.sendKey())
	}
}

// note names the line, and the original of every renamed name.
func (b *builder) note(e *rawEvent) string {
	n := e.source
	for _, f := range []struct{ field, v string }{{"actor", e.actor}, {"scope", e.scope}, {"resource", e.resource}} {
		if f.v != "" && b.names[f.field].renamed(f.v) {
			n += fmt.Sprintf(" (%s %q)", f.field, f.v)
		}
	}
	return clipRunes(n, lab.MaxNote)
}

// declare names the scopes and resources the events use. A scope's first
// token is the least token its acquires carry, so an acquire that logs
// none continues the count the log shows.
func (b *builder) declare(s *lab.Scenario) {
	first := map[string]int64{}
	for _, e := range s.Events {
		if e.Kind == lab.Acquire && e.Token != nil {
			if t, ok := first[e.Scope]; !ok || *e.Token < t {
				first[e.Scope] = *e.Token
			}
		}
	}
	firstOf := func(scope string) int64 {
		if t, ok := first[scope]; ok {
			return t
		}
		return 1
	}
	for _, orig := range b.names["scope"].order {
		if s.Scopes == nil {
			s.Scopes = map[string]lab.Scope{}
		}
		name := b.names["scope"].of[orig]
		s.Scopes[name] = lab.Scope{FirstToken: firstOf(name)}
	}
	if s.Scopes == nil && len(first) > 0 {
		s.Scopes = map[string]lab.Scope{"job": {FirstToken: firstOf("")}}
	}
	for _, name := range b.names["resource"].order {
		if s.Resources == nil {
			s.Resources = map[string]lab.Resource{}
		}
		s.Resources[b.names["resource"].of[name]] = lab.Resource{Fencing: true, Remember: lab.Durable}
	}
}

// clipRunes shortens s to at most n runes.
func clipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
