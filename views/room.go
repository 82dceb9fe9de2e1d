package views

import (
	"strings"

	"fencelab/lab"
)

// Question is predict mode's question at step n (1-based) of the
// presentation, its answer and the sentence that reveals it; ask is empty
// when the step asks nothing.
func (p PresentPage) Question(n int) (ask string, answer lab.Decision, reveal string) {
	if n < 1 || n > len(p.Report.Trace.Steps) {
		return "", "", ""
	}
	st := p.Report.Trace.Steps[n-1]
	ask, answer = p.question(st)
	if ask == "" {
		return "", "", ""
	}
	return ask, answer, p.Reveal(st)
}

// Steps is the number of steps presented.
func (p PresentPage) Steps() int { return len(p.Report.Trace.Steps) }

// StepText is step n in a line for a phone: its note when it has one,
// else the actor, the kind and its fields.
func (p PresentPage) StepText(n int) string {
	if n < 1 || n > len(p.Report.Trace.Steps) {
		return ""
	}
	st := p.Report.Trace.Steps[n-1]
	if st.Event.Note != "" {
		return st.Event.Note
	}
	words := []string{}
	if st.Event.Actor != "" {
		words = append(words, st.Event.Actor)
	}
	words = append(words, string(st.Event.Kind))
	for _, f := range p.Report.eventFields(st.Event) {
		words = append(words, f.Name, f.Value)
	}
	if st.Token != nil {
		words = append(words, "token", token(st.Token))
	}
	return strings.Join(words, " ")
}

// StudentPage is a live room on a student's phone: the presentation's
// steps, the one the presenter is on, and the question when there is one.
// Without JavaScript it shows the room as it was when loaded, with a form
// per question and a link to look again; room.js follows the room live.
type StudentPage struct {
	Deck  PresentPage
	Code  string
	Step  int
	Mine  map[int]string // the student's answers by step
	Open  map[int]bool   // steps whose question takes answers now
	Shown map[int]bool   // steps whose question is revealed
	Name  string         // the name the student last gave
	Error string         // what went wrong with the last answer, if anything
}

// JoinPage asks for a room's code.
type JoinPage struct {
	Code  string
	Error string
}

// RoomSummary is a room after class: each question, how the class
// answered, the right answer, and who was right, hardest first.
type RoomSummary struct {
	Title     string
	Page      string // the presentation's page
	ID        string
	Created   string
	Questions []SummaryQuestion
}

// SummaryQuestion is one question of a room's summary.
type SummaryQuestion struct {
	Step     int
	Ask      string
	Answer   string
	Reveal   string
	Right    int
	Wrong    int
	RightBy  []string // names given by the students who were right
	WrongBy  []string
	Revealed bool
}

// WrongShare is the share of wrong answers, in whole percent.
func (q SummaryQuestion) WrongShare() int {
	if q.Right+q.Wrong == 0 {
		return 0
	}
	return 100 * q.Wrong / (q.Right + q.Wrong)
}

// studentVerdict is what a student's phone says at a reveal, before the reason.
func studentVerdict(mine, answer string) string {
	switch mine {
	case "":
		return "You did not answer."
	case answer:
		return "✓ You were right."
	}
	return "✕ Not this time."
}
