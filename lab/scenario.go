package lab

// Kind is the kind of an event, spelled as in the spec.
type Kind string

// The event kinds of the replay model.
const (
	Acquire Kind = "acquire"
	Read    Kind = "read"
	Pause   Kind = "pause"
	Resume  Kind = "resume"
	Expire  Kind = "expire"
	Renew   Kind = "renew"
	Release Kind = "release"
	Check   Kind = "check"
	Write   Kind = "write"
	Send    Kind = "send"
	Deliver Kind = "deliver"
	Commit  Kind = "commit"
	Restart Kind = "restart"
	Crash   Kind = "crash"
)

// Limits of a scenario, from the spec.
const (
	MaxEvents      = 500
	MaxActors      = 16
	MaxScopes      = 8
	MaxResources   = 8
	MaxTitle       = 120
	MaxDescription = 4000
	MaxValue       = 200
	MaxNote        = 200
)

// Scenario is one timeline with its declarations, as read from a scenario file.
// Parse fills in the defaults (one scope "job", one resource "result").
type Scenario struct {
	Version     int                 `json:"version"`
	Title       string              `json:"title"`
	Description string              `json:"description,omitempty"`
	Scopes      map[string]Scope    `json:"scopes,omitempty"`
	Resources   map[string]Resource `json:"resources,omitempty"`
	Events      []Event             `json:"events"`

	// compiled is what Parse resolved the scenario to, for Replay.
	compiled *compiled
}

// Scope is a lease scope with its own token issuer. Remember (model 3)
// says whether the lease service keeps the scope's leases and counter
// across a restart; empty is the default, durable.
type Scope struct {
	FirstToken int64    `json:"first_token"`
	Remember   Remember `json:"remember,omitempty"`
}

// Remember says whether a receiver keeps its remembered token (or, as
// Keys, its op keys; for a scope, its leases and counter) across a restart.
type Remember string

// The two kinds of receiver memory.
const (
	Durable Remember = "durable"
	Memory  Remember = "memory"
)

// Tokens says whether a receiver remembers one token for all scopes or
// one per scope (model 3).
type Tokens string

// The two ways a receiver remembers tokens.
const (
	SharedTokens   Tokens = "shared"
	PerScopeTokens Tokens = "per-scope"
)

// Resource is a protected receiver of writes. Keys and Tokens (model 3)
// are empty when the file leaves them out: durable keys, shared tokens.
type Resource struct {
	Fencing  bool     `json:"fencing"`
	Remember Remember `json:"remember"`
	Keys     Remember `json:"keys,omitempty"`
	Tokens   Tokens   `json:"tokens,omitempty"`
}

// Event is one entry of the timeline. Which fields are allowed depends on
// Kind; Parse rejects the others. Token is set when the event names a token,
// and TokenNull when it names the JSON null (a write that carries no token).
type Event struct {
	Actor    string  `json:"actor,omitempty"`
	Kind     Kind    `json:"kind"`
	Scope    string  `json:"scope,omitempty"`
	Resource string  `json:"resource,omitempty"`
	Value    *string `json:"value,omitempty"`
	ID       string  `json:"id,omitempty"`
	Request  string  `json:"request,omitempty"`
	Op       string  `json:"op,omitempty"`
	Token    *int64  `json:"token,omitempty"`
	Split    *bool   `json:"split,omitempty"`
	RMW      *bool   `json:"rmw,omitempty"`
	Note     string  `json:"note,omitempty"`

	// TokenNull records an explicit "token": null on a write or send.
	TokenNull bool `json:"-"`
}

// IsSplit reports whether the event is a split acquire (model 3).
func (e Event) IsSplit() bool { return e.Split != nil && *e.Split }

// IsRMW reports whether the event is a read-modify-write (model 3).
func (e Event) IsRMW() bool { return e.RMW != nil && *e.RMW }
