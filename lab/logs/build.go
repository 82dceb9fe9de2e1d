package logs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"fencelab/lab"
)

// scenario builds, validates and compiles the scenario of the timeline.
func (p *pipeline) scenario(b *namesOf) (*lab.Scenario, error) {
	s := &lab.Scenario{Version: 1, Title: p.title(), Description: p.description(b)}
	for _, e := range p.events {
		s.Events = append(s.Events, p.event(e, b))
	}
	p.declare(s, b)
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(s); err != nil {
		return nil, err
	}
	parsed, err := lab.Parse(&buf)
	if err != nil {
		return nil, p.explain(err)
	}
	return parsed, nil
}

// explain turns a validation error into reasons naming source lines.
func (p *pipeline) explain(err error) error {
	var ve *lab.ValidationError
	if !errors.As(err, &ve) {
		return &Error{Reasons: []string{err.Error()}}
	}
	var reasons []string
	for _, fe := range ve.Errors {
		where := "the imported scenario"
		if fe.Index >= 1 && fe.Index <= len(p.events) {
			where = p.src(p.events[fe.Index-1])
		}
		reasons = append(reasons, fmt.Sprintf("%s: %s: %s", where, fe.Field, fe.Message))
	}
	return &Error{Reasons: reasons}
}

func (p *pipeline) title() string {
	names := make([]string, len(p.im.files))
	for i, f := range p.im.files {
		names[i] = f.base
	}
	return clipRunes("Incident from "+strings.Join(names, ", "), lab.MaxTitle)
}

func (p *pipeline) description(b *namesOf) string {
	var d strings.Builder
	fmt.Fprintf(&d, "Imported from %d log lines (%d events) by fencelab import.", p.im.lines, len(p.events))
	for _, r := range b.legend {
		fmt.Fprintf(&d, " %s %s is %q.", r.Field, r.Name, r.Original)
	}
	return clipRunes(d.String(), lab.MaxDescription)
}

// event is the scenario event of a timeline event, with the fields its
// kind takes.
func (p *pipeline) event(e *ev, b *namesOf) lab.Event {
	out := lab.Event{Kind: e.kind, Note: p.note(e, b)}
	switch e.kind {
	case lab.Deliver, lab.Commit:
		out.Request = b.name("request", e.send.key)
		return out
	case lab.Restart:
		if e.resource != "" {
			out.Resource = b.name("resource", e.resource)
		} else {
			out.Scope = b.name("scope", e.scope)
		}
		return out
	}
	out.Actor = b.actor(e)
	switch e.kind {
	case lab.Acquire:
		out.Scope, out.Token = b.name("scope", e.scope), e.token
	case lab.Expire, lab.Renew, lab.Release, lab.Check:
		out.Scope = b.name("scope", e.scope)
	case lab.Read:
		out.Resource = b.name("resource", e.resource)
	case lab.Write, lab.Send:
		v := "?"
		if e.hasValue {
			v = clipRunes(e.value, lab.MaxValue)
		}
		out.Value, out.Token = &v, e.token
		out.Scope, out.Resource, out.Op = b.name("scope", e.scope), b.name("resource", e.resource), b.name("op", e.op)
		if e.kind == lab.Send {
			out.ID = b.name("request", e.key)
		}
	}
	return out
}

// note starts with the event's line (after "inferred: " or "computed: "),
// then the originals of renamed names, then the other lines it cites.
func (p *pipeline) note(e *ev, b *namesOf) string {
	var n strings.Builder
	switch {
	case e.inferred:
		n.WriteString("inferred: ")
	case e.computed:
		n.WriteString("computed: ")
	}
	n.WriteString(p.src(e))
	if e.incarnation > 1 && e.crash != nil {
		orig := e.origActor
		if orig == "" {
			orig = e.actor
		}
		fmt.Fprintf(&n, "; incarnation %d of %s, after the crash at %s", e.incarnation, orig, p.src(e.crash))
	}
	if e.computed {
		fmt.Fprintf(&n, " (a pause of %s, logged when it ended)", e.duration)
	}
	for _, f := range []struct{ field, v string }{{"actor", e.origActor}, {"scope", e.scope}, {"resource", e.resource}} {
		if f.field == "actor" && f.v == "" {
			f.v = e.actor
		}
		if f.v != "" && b.names[f.field].renamed(f.v) {
			fmt.Fprintf(&n, " (%s %q)", f.field, f.v)
		}
	}
	if e.byDefault {
		fmt.Fprintf(&n, "; %s by default (no line says)", e.observed)
	}
	for _, c := range e.cites {
		fmt.Fprintf(&n, "; see %s", p.src(c))
	}
	return clipRunes(n.String(), lab.MaxNote)
}

// declare names the scopes and resources the events use. A scope's first
// token is the least token its acquires carry, so an acquire that logs
// none continues the count the log shows.
func (p *pipeline) declare(s *lab.Scenario, b *namesOf) {
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
