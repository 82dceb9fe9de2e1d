package draft

import (
	"slices"
	"strconv"
	"strings"

	"fencelab/lab"
)

// Verb is what a button of the editor's form asks Apply to do. The
// button's op value is the verb, or for a verb on a numbered item
// Op(verb, n); templates and the editor's script build op values only
// through Op, AddOp and their templates, so this file is the one place
// that spells them.
type Verb string

// The editor's verbs.
const (
	Run         Verb = "run"          // replay; changes nothing
	Up          Verb = "up"           // Op(Up, n): card n one place up
	Down        Verb = "down"         // Op(Down, n): card n one place down
	Dup         Verb = "dup"          // Op(Dup, n): a copy of card n after it
	Del         Verb = "del"          // Op(Del, n): card n deleted
	Add         Verb = "add"          // the palette's event at the end, or AddOp(kind, n)
	ActorAdd    Verb = "actor-add"    // a new actor
	ActorDel    Verb = "actor-del"    // Op(ActorDel, n): actor n removed, unless an event uses it
	ScopeAdd    Verb = "scope-add"    // a new scope
	ScopeDel    Verb = "scope-del"    // Op(ScopeDel, n): scope n removed
	ResourceAdd Verb = "resource-add" // a new resource
	ResourceDel Verb = "resource-del" // Op(ResourceDel, n): resource n removed
)

// verbs is every verb, for the tests that check each round-trips.
var verbs = []Verb{Run, Up, Down, Dup, Del, Add, ActorAdd, ActorDel, ScopeAdd, ScopeDel, ResourceAdd, ResourceDel}

// Verbs returns every verb Apply understands. The slice is the caller's own.
func Verbs() []Verb { return slices.Clone(verbs) }

// opSep separates a verb from its argument, and an add's kind from its place.
const opSep = "."

// Op is the op value of a button that applies v to item n (1-based): a
// card, actor, scope or resource.
func Op(v Verb, n int) string { return joinOp(string(v), strconv.Itoa(n)) }

// AddOp is the op value that puts an event of kind k at place n (1-based),
// as dragging a kind from the palette into the timeline does.
func AddOp(k lab.Kind, n int) string { return addOp(string(k), strconv.Itoa(n)) }

func joinOp(verb, arg string) string { return verb + opSep + arg }

func addOp(kind, n string) string { return joinOp(string(Add), kind+opSep+n) }

// The templates of Op and AddOp, with "{verb}", "{kind}" and "{n}" to
// fill in, for the editor's script: it renumbers a card's buttons after a
// move and asks for a dragged kind without knowing the scheme.
var (
	OpTemplate    = joinOp("{verb}", "{n}")
	AddOpTemplate = addOp("{kind}", "{n}")
)

// parsed is an op value taken apart: its verb, the item n it names (0 when
// none), and for an add the kind to add (empty: the palette's).
type parsed struct {
	verb Verb
	n    int
	kind lab.Kind
}

// parseOp takes an op value apart; an add's place that is not a number
// is 0, so the event goes at the end.
func parseOp(s string) parsed {
	verb, arg, _ := strings.Cut(s, opSep)
	p := parsed{verb: Verb(verb)}
	if p.verb == Add {
		kind, at, _ := strings.Cut(arg, opSep)
		p.kind, arg = lab.Kind(kind), at
	}
	p.n, _ = strconv.Atoi(arg)
	return p
}
