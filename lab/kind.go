package lab

import "slices"

// kindRule is what sets an event kind apart outside the replay's own step:
// the fields it takes, how it names its scope and resource, and its part
// in a request. Parse, validation, the programs, the descriptions and the
// editor's draft read it from here, so a kind is one row of kindRules.
// What each kind does under each policy is the replay's (replay.go, step);
// TestKindSwitchesComplete fails when a kind is missing there, or from
// the other switches that do each kind's own work (kindSwitches).
type kindRule struct {
	// fields are the fields it takes besides kind and note, in the order
	// of the spec's table; the first required of them are required.
	fields   []string
	required int
	// scope and resource say how it names them.
	scope, resource naming
	// sends: it sends a request with a value and a token, delivered at
	// once (write) or left in flight for a deliver (send). A null token on
	// it is a worker that sends none.
	sends bool
	// delivers and commits: it names a send's request by its id, and
	// brings it to the resource (deliver) or has the racy receiver apply it
	// (commit).
	delivers, commits bool
}

// naming is how an event kind names a scope or a resource.
type naming int8

const (
	namesNone    naming = iota // the kind takes no such name
	namesAsIs                  // a name given must be declared; none is left to the replay (model 3)
	namesDefault               // none given is the only one declared, filled in by Parse
)

// kindRules is every event kind, in the order of the spec's table, with its
// rule.
var kindRules = [...]struct {
	kind Kind
	kindRule
}{
	{Acquire, kindRule{fields: []string{"actor", "scope", "token", "split"}, required: 1, scope: namesDefault}},
	{Read, kindRule{fields: []string{"actor", "resource"}, required: 1, resource: namesAsIs}},
	{Pause, kindRule{fields: []string{"actor"}, required: 1}},
	{Resume, kindRule{fields: []string{"actor"}, required: 1}},
	{Expire, kindRule{fields: []string{"actor", "scope"}, required: 1, scope: namesDefault}},
	{Renew, kindRule{fields: []string{"actor", "scope"}, required: 1, scope: namesDefault}},
	{Release, kindRule{fields: []string{"actor", "scope"}, required: 1, scope: namesDefault}},
	{Check, kindRule{fields: []string{"actor", "scope"}, required: 1, scope: namesAsIs}},
	{Write, kindRule{fields: []string{"actor", "value", "resource", "op", "token", "scope", "rmw"}, required: 2,
		scope: namesAsIs, resource: namesDefault, sends: true}},
	{Send, kindRule{fields: []string{"actor", "value", "id", "resource", "op", "token", "scope", "rmw"}, required: 3,
		scope: namesAsIs, resource: namesDefault, sends: true}},
	{Deliver, kindRule{fields: []string{"request"}, required: 1, delivers: true}},
	{Commit, kindRule{fields: []string{"request"}, required: 1, commits: true}},
	// A restart needs exactly one of its two fields, checked apart (parseEvent).
	{Restart, kindRule{fields: []string{"resource", "scope"}, scope: namesAsIs, resource: namesAsIs}},
	{Crash, kindRule{fields: []string{"actor"}, required: 1}},
}

// numKinds is len(Kinds()).
const numKinds = len(kindRules)

// kinds lists every event kind in the order the spec's table gives them.
var kinds = func() (ks [numKinds]Kind) {
	for i, row := range kindRules {
		ks[i] = row.kind
	}
	return ks
}()

// Kinds returns every event kind in the spec's order. The slice is the
// caller's own.
func Kinds() []Kind { return slices.Clone(kinds[:]) }

// kindRuleOf is each kind's row.
var kindRuleOf = func() map[Kind]*kindRule {
	m := make(map[Kind]*kindRule, numKinds)
	for i := range kindRules {
		m[kindRules[i].kind] = &kindRules[i].kindRule
	}
	return m
}()

// noRule is the rule of an unknown kind: it takes nothing and does nothing.
var noRule kindRule

// rule is k's row, an empty one for an unknown kind.
func (k Kind) rule() *kindRule {
	if r, ok := kindRuleOf[k]; ok {
		return r
	}
	return &noRule
}

// known reports whether k is an event kind at all.
func (k Kind) known() bool {
	_, ok := kindRuleOf[k]
	return ok
}

// namesRequest reports whether the kind names a send's request by its id.
func (r *kindRule) namesRequest() bool { return r.delivers || r.commits }

// takes reports whether the kind takes field f (besides kind and note).
func (r *kindRule) takes(f string) bool { return slices.Contains(r.fields, f) }

// Takes reports whether an event of kind k takes field f besides kind and
// note: a send is the kind that takes an id, a deliver and a commit take
// a request.
func (k Kind) Takes(f string) bool { return k.rule().takes(f) }

// NamesRequest reports whether an event of kind k names a send's request
// by its id (deliver, commit).
func (k Kind) NamesRequest() bool { return k.rule().namesRequest() }

// DefaultsScope reports whether Parse fills in the only declared scope on
// an event of kind k that names none (acquire, expire, renew, release).
// Other kinds keep the scope as written (model 3), so the editor's draft
// leaves out exactly the scopes this fills in.
func (k Kind) DefaultsScope() bool { return k.rule().scope == namesDefault }

// DefaultsResource reports whether Parse fills in the only declared
// resource on an event of kind k that names none (write, send).
func (k Kind) DefaultsResource() bool { return k.rule().resource == namesDefault }
