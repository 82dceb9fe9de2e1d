package views

import (
	"strconv"
	"strings"

	"fencelab/lab"
	"fencelab/views/paths"
)

// PresentPage is a scenario shown one step at a time, for a classroom: a
// built-in or a saved run, its diagram under one policy, and optionally
// predict mode, where the audience guesses each write's fate first.
type PresentPage struct {
	Report  *Report
	Diagram lab.Policy // the policy of the diagram, and of the predictions
	// Page is the path of the page presented, a built-in's or a saved
	// run's; the presentation lives at paths.PresentPathOf(Page).
	Page    string
	Predict bool
	// CanStartRoom offers the live room: the server keeps rooms.
	CanStartRoom bool
	// Room is the live room this presentation drives, if any.
	Room *PresentRoom
}

// PresentRoom is a live room as its presenter's screen shows it.
type PresentRoom struct {
	ID         string // the room's permanent id, in its summary's link
	Code       string // what students type
	JoinURL    string // the link the QR code holds
	JoinHost   string // scheme and host, shown before "/join"
	QR         string // the QR code of JoinURL, an SVG element rendered by the server
	SummaryURL string
	ShowNames  bool // names in the shareable summary
	Countdown  int  // seconds per question, 0 for none
}

// Countdowns are the countdowns a presenter may choose, in seconds (0: none).
var Countdowns = []int{0, 15, 30, 60, 120}

// countdownLabel is how the Options menu names a countdown.
func countdownLabel(n int) string {
	if n == 0 {
		return "none: answers close at the reveal"
	}
	return itoa(n) + " seconds"
}

// exit is the page presented, with the same choices; present.js adds the
// current step's fragment.
func (p PresentPage) exit() string {
	return withQuery(p.Page, pageQuery(p.Report.Policies, p.Diagram))
}

// action is where the presentation's settings form goes: itself.
func (p PresentPage) action() string { return paths.PresentPathOf(p.Page) }

// question is what predict mode asks (nothing outside it) before step st is revealed, and the
// answer under the diagram's policy. Only writes and deliveries that the
// resource accepts or rejects are asked about: for the other outcomes
// (suppressed, aborted, dropped, checked) "accepted or rejected?" has no
// fair answer, and they are shown at once.
func (p PresentPage) question(st lab.Step) (ask string, answer lab.Decision) {
	o := st.Outcomes.Of(p.Diagram)
	if !p.Predict || o.Decision != lab.Accepted && o.Decision != lab.Rejected {
		return "", ""
	}
	e := st.Event
	var what string
	switch e.Kind {
	case lab.Write:
		what = e.Actor + "’s write of “" + deref(e.Value) + "”"
	case lab.Deliver:
		what = "request " + e.Request
	default:
		return "", ""
	}
	return "Under " + string(p.Diagram) + ", is " + what + " " + withToken(st.Token) + " accepted or rejected?", o.Decision
}

func withToken(t *int64) string {
	if t == nil {
		return "without a token"
	}
	return "with token " + strconv.FormatInt(*t, 10)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// stepLink is the fragment of step n.
func stepLink(n int) string { return "#step-" + itoa(n) }

// Reveal is what predict mode says once step st's outcome under the
// diagram's policy is shown: one plain sentence, the decision first, then
// why in the engine's words, with each resource's name in quotes so that
// a resource called "result" reads as a name, not as a word of the sentence.
func (p PresentPage) Reveal(st lab.Step) string {
	o := st.Outcomes.Of(p.Diagram)
	why := strings.TrimPrefix(o.Reason, string(o.Decision)+": ")
	why = quoteNames(why, p.Report.resources)
	why = strings.NewReplacer(": ", " — ", "; ", ", and ").Replace(why)
	why = strings.TrimRight(why, ". ")
	d := string(o.Decision)
	if d == "" {
		return ""
	}
	sentence := strings.ToUpper(d[:1]) + d[1:]
	if why != "" {
		sentence += ", because " + why
	}
	return sentence + "."
}

// quoteNames puts “ ” around each whole-word occurrence of names in s.
func quoteNames(s string, names []string) string {
	for _, name := range names {
		if name == "" {
			continue
		}
		var b strings.Builder
		rest := s
		for {
			i := strings.Index(rest, name)
			if i < 0 {
				b.WriteString(rest)
				break
			}
			end := i + len(name)
			whole := (i == 0 || !wordByte(rest[i-1])) && (end == len(rest) || !wordByte(rest[end]))
			b.WriteString(rest[:i])
			if whole {
				b.WriteString("“" + name + "”")
			} else {
				b.WriteString(name)
			}
			rest = rest[end:]
		}
		s = b.String()
	}
	return s
}

func wordByte(c byte) bool {
	return c == '-' || c == '_' || c == '\'' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// lesson is the opening slide's line of what the run is about: the
// description's first sentence, unless the description holds an
// original's words (a copy), which are not this run's.
func (p PresentPage) lesson() string {
	ps := paragraphs(p.Report.Scenario.Description)
	if len(ps) == 0 || hasOriginal(ps[0]) {
		return ""
	}
	first := ps[0]
	if i := strings.Index(first, ". "); i >= 0 {
		first = first[:i+1]
	}
	return first
}

// openingQuestion is what the class is to find out, for the opening slide.
func (p PresentPage) openingQuestion() string {
	ps := p.Report.Policies
	if len(ps) == 1 {
		return "at each step, what does " + string(ps[0]) + " let through, and does the data survive?"
	}
	names := policyNames(ps)
	if len(ps) == 2 {
		names = string(ps[0]) + " and " + string(ps[1])
	}
	return "at each step, what do " + names + " each let through, and which keeps the data? The diagram follows " + string(p.Diagram) + "."
}
