package logs

import (
	"fmt"
	"strconv"

	"fencelab/lab"
)

// namer gives the originals of one field names the model accepts: an
// original that is a valid name keeps it, the others get short stable
// names in order of appearance.
type namer struct {
	field, prefix string
	max           int
	of            map[string]string // original to name
	order         []string          // originals in order of appearance
	taken         map[string]bool
}

func newNamer(field, prefix string, max int) *namer {
	return &namer{field: field, prefix: prefix, max: max, of: map[string]string{}, taken: map[string]bool{}}
}

// see records an original; valid ones are reserved at once.
func (n *namer) see(orig string) {
	if orig == "" {
		return
	}
	if _, ok := n.of[orig]; ok {
		return
	}
	n.order = append(n.order, orig)
	n.of[orig] = ""
	if validName(orig, n.max) {
		n.of[orig], n.taken[orig] = orig, true
	}
}

// assign names the invalid originals, skipping names already taken.
func (n *namer) assign() []Rename {
	var legend []Rename
	k := 0
	for _, orig := range n.order {
		if n.of[orig] != "" {
			continue
		}
		name := n.generated(k)
		for ; n.taken[name]; name = n.generated(k) {
			k++
		}
		k++
		n.of[orig], n.taken[name] = name, true
		legend = append(legend, Rename{Field: n.field, Name: name, Original: orig})
	}
	return legend
}

// generated is the k-th short name: A, B, … for actors, else prefix1, prefix2, ….
func (n *namer) generated(k int) string {
	if n.prefix == "" {
		if k < 26 {
			return string(rune('A' + k))
		}
		return "A" + strconv.Itoa(k)
	}
	return n.prefix + strconv.Itoa(k+1)
}

func (n *namer) renamed(orig string) bool { return orig != "" && n.of[orig] != orig }

// validName is the model's rule for names: 1..max of A-Z a-z 0-9 _ -.
func validName(s string, max int) bool {
	if len(s) == 0 || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// namesOf names every original of the timeline as the model accepts.
type namesOf struct {
	names  map[string]*namer
	legend []Rename
	incs   map[string]string // actor and incarnation to its name
}

func (b *namesOf) name(f, orig string) string { return b.names[f].of[orig] }

// actor is the scenario name of an event's actor, its incarnation's
// when it has one.
func (b *namesOf) actor(e *ev) string {
	if e.incarnation > 1 {
		return b.incs[who(e)]
	}
	return b.names["actor"].of[e.actor]
}

// nameAll gives every send a unique request key, then names every field
// and every incarnation.
func (p *pipeline) nameAll() *namesOf {
	b := &namesOf{names: map[string]*namer{
		"actor": newNamer("actor", "", 16), "scope": newNamer("scope", "scope", 32),
		"resource": newNamer("resource", "resource", 32), "request": newNamer("request", "req", 32),
		"op": newNamer("op", "op", 32),
	}, incs: map[string]string{}}
	count := map[string]int{}
	for _, e := range p.events {
		if e.kind == lab.Send {
			p.sendKeyOf(e, count, b)
		}
		if e.kind == lab.Deliver || e.kind == lab.Commit {
			continue // a deliver names only its request
		}
		if e.kind == lab.Restart {
			b.names["resource"].see(e.resource)
			if e.resource == "" {
				b.names["scope"].see(e.scope)
			}
			continue
		}
		b.names["actor"].see(e.actor)
		b.names["scope"].see(e.scope)
		b.names["resource"].see(e.resource)
		b.names["op"].see(e.op)
	}
	for _, f := range []string{"actor", "scope", "resource", "request", "op"} {
		b.legend = append(b.legend, b.names[f].assign()...)
	}
	b.incarnationNames(p)
	return b
}

// incarnationNames names X's incarnation n X_n, or the next short name
// when that is taken or too long.
func (b *namesOf) incarnationNames(p *pipeline) {
	an := b.names["actor"]
	k := 0
	for _, e := range p.events {
		if e.incarnation < 2 || b.incs[who(e)] != "" {
			continue
		}
		name := fmt.Sprintf("%s_%d", an.of[e.actor], e.incarnation)
		if !validName(name, 16) || an.taken[name] {
			for name = an.generated(k); an.taken[name]; name = an.generated(k) {
				k++
			}
		}
		an.taken[name] = true
		b.incs[who(e)] = name
		r := Rename{Field: "actor", Name: name, Original: e.actor, Incarnation: e.incarnation, Since: p.src(e)}
		b.legend = append(b.legend, r)
	}
}

// sendKeyOf keys a send by its request, the second send of one request
// as request-2 and so on; a send that logs no request gets a key from its
// line, and a gap.
func (p *pipeline) sendKeyOf(e *ev, count map[string]int, b *namesOf) {
	if e.request == "" {
		e.key = "line " + p.src(e)
		p.gap("send-without-request", fmt.Sprintf("%s's send logs no request id: no deliver can be matched to "+
			"it, so what the resource did with it is unknown", e.actor), p.src(e))
	} else if count[e.request]++; count[e.request] == 1 {
		e.key = e.request
	} else {
		e.key = fmt.Sprintf("%s-%d", e.request, count[e.request])
	}
	b.names["request"].see(e.key)
}
