package export

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"fencelab/lab"
)

// DiagramPolicy is the one rule for the policy a run's diagram shows when
// the reader named none: the first of the chosen policies that is a
// default and checks a token (fenced, when unfenced and fenced are shown),
// else the first chosen; with none chosen, the defaults. Every page, the
// pictures and the Mermaid diagram follow it.
func DiagramPolicy(chosen []lab.Policy) lab.Policy {
	if len(chosen) == 0 {
		chosen = lab.DefaultPolicies()
	}
	if i := slices.IndexFunc(chosen, func(p lab.Policy) bool { return p.Default() && p.ChecksToken() }); i >= 0 {
		return chosen[i]
	}
	return chosen[0]
}

// Mermaid is the run as a Mermaid sequenceDiagram under policy p, which
// the wikis where postmortems live (GitHub, GitLab, Obsidian) draw
// natively: the lease service, each actor and each resource a
// participant; grants, checks, reads and writes as messages with the
// resource's answer under p; pauses, expiries, restarts and violations as
// notes. Everything typed is kept to the characters Mermaid takes as
// text (mermaidText).
func Mermaid(s *lab.Scenario, t *lab.Trace, p lab.Policy) string {
	var b strings.Builder
	b.WriteString("sequenceDiagram\n")
	ids := map[string]string{} // an actor's or resource's name: its participant id
	actors, resources := mermaidParties(s, t)
	fmt.Fprintf(&b, "    participant L as lease service\n")
	for i, a := range actors {
		ids["a:"+a] = "A" + strconv.Itoa(i+1)
		fmt.Fprintf(&b, "    participant %s as %s\n", ids["a:"+a], mermaidText(a))
	}
	for i, r := range resources {
		ids["r:"+r] = "R" + strconv.Itoa(i+1)
		fmt.Fprintf(&b, "    participant %s as %s\n", ids["r:"+r], mermaidText(r))
	}
	actor := func(e lab.Event) string {
		if id, ok := ids["a:"+e.Actor]; ok {
			return id
		}
		return "L"
	}
	res := func(name string) string {
		if id, ok := ids["r:"+name]; ok {
			return id
		}
		if len(resources) > 0 {
			return ids["r:"+resources[0]]
		}
		return "L"
	}
	sends := map[string]lab.Event{}
	for _, e := range s.Events {
		if e.Kind == lab.Send {
			sends[e.ID] = e
		}
	}
	for _, st := range t.Steps {
		e, o := st.Event, st.Outcomes.Of(p)
		a, d := actor(e), string(o.Decision)
		tok := ""
		if st.Token != nil {
			tok = " token " + strconv.FormatInt(*st.Token, 10)
		}
		say := func(format string, args ...any) { fmt.Fprintf(&b, "    "+format+"\n", args...) }
		n := strconv.Itoa(st.Index)
		switch e.Kind {
		case lab.Acquire, lab.Renew:
			say("%s->>L: %s. %s %s", a, n, e.Kind, mermaidText(e.Scope))
			arrow := "-->>"
			if o.Decision == lab.Refused {
				arrow = "--x"
			}
			say("L%s%s: %s%s", arrow, a, d, tok)
		case lab.Release:
			say("%s->>L: %s. release %s", a, n, mermaidText(e.Scope))
		case lab.Check:
			say("%s->>L: %s. check the lease", a, n)
			say("L-->>%s: %s", a, d)
		case lab.Read:
			r := res(e.Resource)
			say("%s->>%s: %s. read", a, r, n)
			say("%s-->>%s: %s", r, a, mermaidText(Values(o.Values, nil)))
		case lab.Write:
			r := res(e.Resource)
			say("%s->>%s: %s. write %s%s", a, r, n, mermaidText(value(e.Value)), tok)
			say("%s-->>%s: %s", r, a, d)
		case lab.Send:
			say("Note over %s: %s. sends %s %s%s, in flight", a, n, mermaidText(e.ID), mermaidText(value(e.Value)), tok)
		case lab.Deliver, lab.Commit:
			from := sends[e.Request]
			r := res(from.Resource)
			say("%s-)%s: %s. %s %s arrives: %s%s", actor(from), r, n, e.Kind, mermaidText(e.Request), mermaidText(value(from.Value)), tok)
			say("Note over %s: %s", r, d)
		case lab.Restart:
			say("Note over %s: %s. restarts", res(e.Resource), n)
		case lab.Expire:
			say("Note over L,%s: %s. lease of %s expires", a, n, mermaidText(e.Actor))
		default: // pause, resume, crash
			say("Note over %s: %s. %s", a, n, e.Kind)
		}
		for _, v := range t.Summary[p].Violations {
			if v.Step == st.Index {
				target := a
				if e.Kind == lab.Write || e.Kind == lab.Deliver || e.Kind == lab.Commit {
					target = res(e.Resource)
					if e.Kind != lab.Write {
						target = res(sends[e.Request].Resource)
					}
				}
				cls := ""
				if v.Class != "" {
					cls = " (" + string(v.Class) + ")"
				}
				say("Note over %s: violates %s%s", target, v.Kind, cls)
			}
		}
	}
	return b.String()
}

// mermaidParties are the actors in order of first appearance and the
// resources the run names.
func mermaidParties(s *lab.Scenario, t *lab.Trace) (actors, resources []string) {
	for _, e := range s.Events {
		if e.Actor != "" && !slices.Contains(actors, e.Actor) {
			actors = append(actors, e.Actor)
		}
	}
	return actors, lab.ResourceNames(s, t)
}

func value(v *string) string {
	if v == nil {
		return "empty"
	}
	return *v
}

// mermaidText keeps what Mermaid reads as a message's or a name's text:
// letters, digits, spaces and plain punctuation stay; anything else (";"
// and "#" end or escape a statement, "%%" opens a comment, "<" and ">" are
// markup, ":" parts a message from its arrow) becomes Mermaid's entity
// code for it, "#59;"; runs of white space, line breaks included, are one
// space.
func mermaidText(s string) string {
	var b strings.Builder
	for _, r := range strings.Join(strings.Fields(s), " ") {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == ' ',
			strings.ContainsRune(".,()'/=@+_!?*-", r), r > 0x7f && r != 0x2028 && r != 0x2029:
			b.WriteRune(r)
		default:
			fmt.Fprintf(&b, "#%d;", r)
		}
	}
	if b.Len() == 0 {
		return "#32;"
	}
	return b.String()
}
