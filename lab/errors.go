package lab

import (
	"fmt"
	"slices"
	"strings"
)

// FieldError names one problem in a scenario. Index is the event's step
// number (1-based, as in the trace); 0 means the scenario itself (title,
// scopes, ...). Field is the JSON field, as in "token" or "scopes.job.first_token".
type FieldError struct {
	Index   int    `json:"index"`
	Field   string `json:"field"`
	Message string `json:"message"`
}

// String renders the error for people: "event 3 (events[2]) token: must be an integer".
func (e FieldError) String() string {
	where := e.Field
	if e.Index > 0 {
		where = fmt.Sprintf("event %d (events[%d]) %s", e.Index, e.Index-1, e.Field)
	}
	if where == "" {
		return e.Message
	}
	return where + ": " + e.Message
}

// ValidationError lists every problem found in a scenario. Nothing runs on
// a scenario that has one.
type ValidationError struct {
	Errors []FieldError
}

func (e *ValidationError) Error() string {
	lines := make([]string, len(e.Errors))
	for i, fe := range e.Errors {
		lines[i] = fe.String()
	}
	return "invalid scenario: " + strings.Join(lines, "; ")
}

// SyntaxError is input that is not JSON at all (or has data after the
// scenario). Offset is the byte where reading failed, when known.
type SyntaxError struct {
	Offset int64
	Err    error
}

func (e *SyntaxError) Error() string {
	if e.Offset > 0 {
		return fmt.Sprintf("malformed JSON at byte %d: %v", e.Offset, e.Err)
	}
	return "malformed JSON: " + e.Err.Error()
}

func (e *SyntaxError) Unwrap() error { return e.Err }

// maxErrors bounds the errors reported for one scenario, so that a hostile
// file of thousands of bad events gets a short answer.
const maxErrors = 100

// problems collects validation errors in the order they are found.
type problems struct {
	list    []FieldError
	dropped int
}

func (p *problems) add(index int, field, format string, args ...any) {
	if len(p.list) >= maxErrors {
		p.dropped++
		return
	}
	p.list = append(p.list, FieldError{Index: index, Field: field, Message: fmt.Sprintf(format, args...)})
}

func (p *problems) err() error {
	if len(p.list) == 0 {
		return nil
	}
	list := p.list
	// Field errors come before whole-scenario ones in the reading; list
	// them in the order of the file, as a person fixes them.
	slices.SortStableFunc(list, func(a, b FieldError) int { return a.Index - b.Index })
	if p.dropped > 0 {
		list = append(list, FieldError{Field: "errors", Message: fmt.Sprintf("%d more errors not shown", p.dropped)})
	}
	return &ValidationError{Errors: list}
}
