package lab

// validate checks what needs the whole scenario: declared scopes and
// resources, send ids, requests and the number of actors. It fills in the
// static defaults (the only scope, the only resource) on the events.
func validate(s *Scenario, p *problems) {
	scope1 := only(s.Scopes)
	resource1 := only(s.Resources)
	sends := map[string]int{}
	actors := map[string]bool{}
	for i := range s.Events {
		e := &s.Events[i]
		index := i + 1
		if e.Actor != "" {
			actors[e.Actor] = true
		}
		r := e.Kind.rule()
		e.Resource = check(r.resource, e.Resource, resource1, s.Resources, index, "resource", p)
		e.Scope = check(r.scope, e.Scope, scope1, s.Scopes, index, "scope", p)
		if r.sends && e.ID != "" {
			if first, ok := sends[e.ID]; ok {
				p.add(index, "id", "%q is already the id of the send at event %d", e.ID, first)
			} else {
				sends[e.ID] = index
			}
		}
	}
	for i, e := range s.Events {
		if e.Kind.rule().namesRequest() && e.Request != "" {
			if _, ok := sends[e.Request]; !ok {
				p.add(i+1, "request", "no send has the id %q", e.Request)
			}
		}
	}
	if len(actors) > MaxActors {
		p.add(0, "events", "%d actors, at most %d", len(actors), MaxActors)
	}
}

// check checks the name an event gives in m as n says, and returns the
// name the event has then: with namesDefault, def when it gives none.
func check[V any](n naming, name, def string, m map[string]V, index int, field string, p *problems) string {
	switch n {
	case namesDefault:
		return declared(name, def, m, index, field, p)
	case namesAsIs:
		named(name, m, index, field, p)
	}
	return name
}

// only returns the single name of m, or "" when m has several.
func only[V any](m map[string]V) string {
	if len(m) != 1 {
		return ""
	}
	for k := range m {
		return k
	}
	return ""
}

// declared checks that name is declared in m, defaulting to the only entry.
func declared[V any](name, def string, m map[string]V, index int, field string, p *problems) string {
	if name == "" {
		if def == "" && len(m) > 1 {
			p.add(index, field, "missing: there are %d %ss, name one of %s", len(m), field, names(m))
		}
		return def
	}
	if _, ok := m[name]; !ok {
		p.add(index, field, "%q is not declared: declared are %s", name, names(m))
	}
	return name
}

// named checks that name, when given, is declared in m. It fills in no
// default: a read, a check, a write's scope and a restart name theirs or
// leave it to the replay (model 3).
func named[V any](name string, m map[string]V, index int, field string, p *problems) {
	if name != "" {
		declared(name, "", m, index, field, p)
	}
}

func names[V any](m map[string]V) string {
	s := ""
	for i, k := range sortedKeys(m) {
		if i > 0 {
			s += ", "
		}
		s += k
	}
	return s
}
