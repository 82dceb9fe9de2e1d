package lab

import (
	"io"
	"io/fs"
)

// TEMPORARY STUBS: replaced by the real engine within the hour. Signatures are final.

// Version is the engine version stored with every saved run.
const Version = "1.0.0"

// FieldError names one problem in a scenario. Index is the event's step
// number (1-based, as in the trace); 0 means the scenario itself (title,
// scopes, ...). Field is the JSON field name ("token", "title", "scopes.job.first_token").
type FieldError struct {
	Index   int    `json:"index"`
	Field   string `json:"field"`
	Message string `json:"message"`
}

// ValidationError lists every problem found in a scenario; nothing runs.
type ValidationError struct{ Errors []FieldError }

func (e *ValidationError) Error() string { return "invalid scenario" }

// SyntaxError is JSON that cannot be read at all (HTTP 400, not 422).
type SyntaxError struct{ Err error }

func (e *SyntaxError) Error() string { return "malformed JSON: " + e.Err.Error() }

// Parse reads a scenario strictly and validates it. Errors are *SyntaxError or *ValidationError.
func Parse(r io.Reader) (*Scenario, error) { panic("todo") }

// Replay runs the scenario under every policy.
func Replay(s *Scenario) *Trace { panic("todo") }

// Outcomes holds one Outcome per policy, in the order of Policies; it marshals as a JSON object keyed by policy.
type Outcomes [8]Outcome

// Of returns the outcome under policy p.
func (o *Outcomes) Of(p Policy) Outcome { panic("todo") }

// Builtin is one scenario of the built-in library.
type Builtin struct {
	Name     string    // file name without .json, e.g. "paused-worker"
	Lesson   string    // first sentence of the description
	Scenario *Scenario // parsed and validated
	Source   []byte    // the file as embedded
}

// Library is the built-in scenarios, sorted in the teaching order.
type Library struct{ List []Builtin }

// LoadLibrary parses and validates every *.json in fsys; one invalid file fails it.
func LoadLibrary(fsys fs.FS) (*Library, error) { panic("todo") }

// Get returns the built-in called name.
func (l *Library) Get(name string) (Builtin, bool) { panic("todo") }
