package probe

import (
	"slices"
	"strings"

	"fencelab/lab"
)

// Result is what one probe found. Exactly one of Steps (sequential),
// Orderings and Concurrent is set, by mode.
type Result struct {
	Target    string     `json:"target"`
	Scenario  string     `json:"scenario"` // its title
	Policy    lab.Policy `json:"policy"`
	Remember  string     `json:"remember"` // "durable" or "memory": what the expectation assumes
	Mode      string     `json:"mode"`     // "sequential", "orderings" or "concurrent"
	Overrides []string   `json:"overrides"`
	// Verdict is "agree", "disagree" or "not testable".
	Verdict string `json:"verdict"`
	// Divergence is the first disagreement in words, or why the scenario
	// is not testable against this receiver.
	Divergence string            `json:"divergence,omitempty"`
	Steps      []Step            `json:"steps,omitempty"`
	Orderings  *OrderingsResult  `json:"orderings,omitempty"`
	Concurrent *ConcurrentResult `json:"concurrent,omitempty"`

	// SQL is the statement file of a SQL receiver; nil for HTTP.
	SQL *SQLFile `json:"sql,omitempty"`
}

// SQLFile is the statement file a SQL receiver ran, kept with the result
// so that a saved probe shows the statements beside what they did.
type SQLFile struct {
	Name      string `json:"name"`   // the file as given to --sql
	Engine    string `json:"engine"` // postgres, mysql or sqlite
	Isolation string `json:"isolation,omitempty"`
	Text      string `json:"text"`
	// Queries are the file's queries with the roles they play and the
	// placeholders they bind, as the file writes them.
	Queries []SQLQuery `json:"queries,omitempty"`
	// Roles, Params and Columns are the role map (with its options), the
	// parameter map and the column items as bound.
	Roles   []string `json:"roles,omitempty"`
	Params  []string `json:"params,omitempty"`
	Columns []string `json:"columns,omitempty"`
}

// requestRoles are the roles of a statement file that play each request
// of the HTTP contract.
var requestRoles = map[string]string{"POST /writes": "write", "POST /grants": "grant", "POST /restart": "restart"}

// RequestName is what a SQL receiver ran for a request of the HTTP
// contract: "SQL write CompleteJob" for "POST /writes", naming the queries
// that play the role ("SQL write" when the query is named write).
// Without a statement file (an HTTP receiver) it is
// the request itself.
func (q *SQLFile) RequestName(request string) string {
	role, ok := requestRoles[request]
	if q == nil || !ok {
		return request
	}
	var names []string
	for _, qq := range q.Queries {
		if slices.Contains(qq.Roles, role) && qq.Name != role { // a query named for its role: "SQL write"
			names = append(names, qq.Name)
		}
	}
	if len(names) == 0 {
		return "SQL " + role
	}
	return "SQL " + role + " " + strings.Join(names, " + ")
}

// SQLQuery is one query of a statement file.
type SQLQuery struct {
	Name         string   `json:"name"`
	Line         int      `json:"line"`
	Roles        []string `json:"roles,omitempty"`
	Placeholders []string `json:"placeholders,omitempty"`
}

// The verdicts of a probe.
const (
	Agree       = "agree"
	Disagree    = "disagree"
	NotTestable = "not testable"
)

// Step is one step of the scenario: the event, what the model expects of
// the receiver and what the receiver did. Expected and Observed are nil
// for a step the receiver takes no part in.
type Step struct {
	Index    int          `json:"index"`
	Event    lab.Event    `json:"event,omitzero"`
	Request  string       `json:"request,omitempty"` // "POST /writes", "POST /grants", "POST /restart"
	Expected *Observation `json:"expected,omitempty"`
	Observed *Observation `json:"observed,omitempty"`
	Agree    bool         `json:"agree"`
	// Reason is the model's reason for the expected outcome.
	Reason string `json:"reason,omitempty"`
	// ExpectVersion is the version condition sent with an rmw write
	// under cas (see docs/probe.md).
	ExpectVersion *int64 `json:"expect_version,omitempty"`
	// Error is the receiver's failure at this step, in words.
	Error string `json:"error,omitempty"`
}

// Observation is an outcome with the resource as read right after it.
// Version is kept and compared only where the model expects one (cas, in
// a scenario with an rmw write).
type Observation struct {
	Outcome string  `json:"outcome"` // applied, rejected, suppressed; ok for grants and restarts; error
	Reason  string  `json:"reason,omitempty"`
	Value   *string `json:"value"`
	Token   *int64  `json:"token"`
	Version *int64  `json:"version,omitempty"`
	// NoToken: the receiver keeps no token (a SQL read without a token
	// column, under cas), so tokens are not compared.
	NoToken bool `json:"no_token,omitempty"`
}

// OrderingsResult sums up the every-ordering mode.
type OrderingsResult struct {
	Requested  string `json:"requested"` // "all" or N
	Seed       *int64 `json:"seed,omitempty"`
	Tried      int    `json:"tried"`
	Disagreed  int    `json:"disagreed"`
	NotTested  int    `json:"not_tested"`
	Stopped    bool   `json:"stopped,omitempty"` // interrupted before all were tried
	FirstOrder []int  `json:"first_order,omitempty"`
	// FirstSteps are the steps of the first ordering that disagreed.
	FirstSteps []Step `json:"first_steps,omitempty"`
}

// ConcurrentResult sums up the concurrent mode.
type ConcurrentResult struct {
	Workers      int        `json:"workers"`
	Seconds      float64    `json:"seconds"`
	Requests     int        `json:"requests"`
	PerSecond    float64    `json:"per_second"`
	Applied      int        `json:"applied"`
	Rejected     int        `json:"rejected"`
	Suppressed   int        `json:"suppressed"`
	Errors       int        `json:"errors"`
	FirstError   string     `json:"first_error,omitempty"`
	Final        *Holding   `json:"final,omitempty"`
	Violation    *Violation `json:"violation,omitempty"`
	StoppedEarly bool       `json:"stopped_early,omitempty"`

	// GaveUp counts writes still failing to serialize after every retry
	// (SQL receivers): neither applied nor rejected.
	GaveUp int `json:"gave_up,omitempty"`
}
