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
	// ShowNames: the room's shareable summary shows the names typed.
	ShowNames bool
}

// JoinPage asks for a room's code.
type JoinPage struct {
	Code  string
	Error string
}

// RoomSummary is a room after class: each question, how the class
// answered, the right answer, hardest first; and each student's results.
type RoomSummary struct {
	Title     string
	Page      string // the presentation's page
	ID        string
	Created   string
	Questions []SummaryQuestion
	Steps     []int            // the steps asked, in order: the columns of Students
	Students  []SummaryStudent // the most right first
	// Names says whether Students carries the names typed, or "Student N".
	Names bool
	// ShowNames is the room's choice: names in the shareable summary.
	ShowNames bool
	// Presenter is the presenter's own view: names always, and the export.
	Presenter bool
	// Withheld is how many questions asked are left out until they are
	// revealed in class (a live room, read by others than its presenter).
	Withheld int
}

// SummaryQuestion is one question of a room's summary.
type SummaryQuestion struct {
	Step     int
	Ask      string
	Answer   string // "accepted" or "rejected"
	Reveal   string
	Accepted int
	Rejected int
	Revealed bool
	// Class is the number of students in the room (those who answered
	// any question): the shares are of the class, not of those who
	// answered this one. Less than the answers (an older caller), it is
	// taken as the answers.
	Class int
}

// class is the number the shares are of: the class, or at least the answers.
func (q SummaryQuestion) class() int { return max(q.Class, q.Accepted+q.Rejected) }

// Answered is the number of answers.
func (q SummaryQuestion) Answered() int { return q.Accepted + q.Rejected }

// Unanswered is the number of students who did not answer.
func (q SummaryQuestion) Unanswered() int { return q.class() - q.Answered() }

// ClassSize is the number of students the shares are of.
func (q SummaryQuestion) ClassSize() int { return q.class() }

// UnansweredShare is the share of the class that did not answer, in whole
// percent: with Share of each answer, it makes 100.
func (q SummaryQuestion) UnansweredShare() int {
	if q.class() == 0 {
		return 0
	}
	return 100 - q.Share("accepted") - q.Share("rejected")
}

// Right is the number of right answers.
func (q SummaryQuestion) Right() int {
	if q.Answer == "accepted" {
		return q.Accepted
	}
	return q.Rejected
}

// Wrong is the number of wrong answers.
func (q SummaryQuestion) Wrong() int { return q.Accepted + q.Rejected - q.Right() }

// WrongShare is the share of wrong answers among the answers, in whole
// percent: how hard the question was, for the order of the summary.
func (q SummaryQuestion) WrongShare() int { return percentOf(q.Wrong(), q.Accepted+q.Rejected) }

// Share is the share of the class whose answer was d, in whole percent.
func (q SummaryQuestion) Share(d string) int {
	n := q.class()
	if d == "accepted" || n == 0 || q.Unanswered() > 0 {
		return percentOf(q.Count(d), n)
	}
	return 100 - q.Share("accepted") // everyone answered: the two add up to 100
}

// Count is the number of answers that were d.
func (q SummaryQuestion) Count(d string) int {
	if d == "accepted" {
		return q.Accepted
	}
	return q.Rejected
}

// percentOf is k of n in whole percent, rounded half up; 0 of nothing is 0.
func percentOf(k, n int) int {
	if n == 0 {
		return 0
	}
	return (200*k + n) / (2 * n)
}

// SummaryStudent is one student's results: a mark per question asked
// ("right", "wrong", or "" when not answered).
type SummaryStudent struct {
	Name     string
	Marks    []string
	Right    int
	Answered int
}

// HandoverPage shows the presenter a one-time code that hands the room
// to another browser.
type HandoverPage struct {
	Title   string
	Code    string
	TakeURL string // where the other browser types it
	Back    string // the presentation
}

// TakePage asks another browser for a room's hand-over code.
type TakePage struct {
	Title  string
	Action string
	Error  string
}

// spaced is a code shown in groups of four, easier to read out.
func spaced(code string) string {
	if len(code) <= 4 {
		return code
	}
	return code[:4] + "-" + code[4:]
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

// withheldWords says how many questions the summary leaves out until they
// are revealed, beside those it shows.
func withheldWords(withheld, shown int) string {
	asked, it := "1 question asked is", "it"
	if withheld > 1 {
		asked, it = itoa(withheld)+" questions asked are", "them"
	}
	words := "The room is live: " + asked + " not shown here until the presenter reveals " + it + " in class."
	if shown > 0 {
		words += " Those revealed are below."
	}
	return words
}
