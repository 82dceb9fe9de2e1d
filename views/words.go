package views

import (
	"slices"
	"strconv"
	"strings"

	"fencelab/lab"
	"fencelab/views/export"
)

// policyText explains each policy in one line, for the chooser and the verdicts.
var policyText = map[lab.Policy]string{
	lab.Unfenced:         "Nobody checks: every write that arrives is applied.",
	lab.ClientCheck:      "The worker checks its lease before sending; the resource applies whatever arrives.",
	lab.Fenced:           "The resource applies a token at least as high as the highest it applied.",
	lab.FencedStrict:     "As fenced, but an equal token is rejected too.",
	lab.FencedIdempotent: "As fenced; an operation already applied is acknowledged, not applied again.",
	lab.FencedRegister:   "As fenced; every grant registers its token at the resource at once.",
	lab.Authoritative:    "The resource asks the lease service: only the current holder's token is applied.",
	lab.FencedRacy:       "As fenced, but check and write happen apart: a late commit applies unchecked.",
	lab.CAS:              "The resource applies a read-modify-write only if nothing landed since the writer read; tokens are ignored.",
}

// invariantText says what each violation means, in plain words.
var invariantText = map[lab.Invariant]string{
	lab.StaleOverwrite:     "applied a token lower than one the resource had already applied",
	lab.SupersededWrite:    "applied a token although a greater one had already been granted",
	lab.DuplicateApplied:   "applied an operation that had already been applied",
	lab.ValidWriteRejected: "turned away the write of the worker that holds the current, valid lease",
	lab.UnownedWrite:       "applied a write whose actor was not the current holder of the lease",
	lab.LostUpdate: "applied a read-modify-write while stale: another actor's update, applied since " +
		"the writer's read, was overwritten by a value computed without it",
}

// invariantClassText names the class each invariant falls in.
var invariantClassText = map[lab.Invariant]string{
	lab.StaleOverwrite:     "corrupting",
	lab.SupersededWrite:    "deposed",
	lab.DuplicateApplied:   "corrupting",
	lab.ValidWriteRejected: "refusing",
	lab.UnownedWrite:       "deposed when another worker holds the lease, else overrun",
	lab.LostUpdate:         "corrupting",
}

// decisionGlyph pairs each decision with a sign, so a badge never relies on
// colour alone; the class picks the colour of its family.
var decisionGlyph = map[lab.Decision]string{
	lab.Granted: "✓", lab.Accepted: "✓", lab.Applied: "✓",
	lab.Refused: "✕", lab.Rejected: "✕",
	lab.Aborted: "⊘", lab.Dropped: "⊘",
	lab.Suppressed: "≡",
	lab.Checked:    "…", lab.Sent: "→",
	lab.OK: "•", lab.Skipped: "↷",
}

func glyph(d lab.Decision) string {
	if g, ok := decisionGlyph[d]; ok {
		return g
	}
	return "?"
}

func decisionClass(d lab.Decision) string {
	switch d {
	case lab.Granted, lab.Accepted, lab.Applied:
		return "badge good"
	case lab.Refused, lab.Rejected:
		return "badge bad"
	case lab.Aborted, lab.Dropped:
		return "badge warn"
	case lab.Suppressed:
		return "badge calm"
	case lab.Checked, lab.Sent:
		return "badge info"
	case lab.Skipped:
		return "badge skip"
	}
	return "badge plain"
}

func itoa(i int) string { return strconv.Itoa(i) }

// token renders a token, or a dash for none.
func token(t *int64) string {
	if t == nil {
		return "—"
	}
	return strconv.FormatInt(*t, 10)
}

// field is one name-value pair of an event, as shown beside its kind.
type field struct{ Name, Value string }

// eventFields lists what an event says besides actor, kind, token and note.
// Scope and resource are left out where the scenario has only one.
func (r *Report) eventFields(e lab.Event) []field {
	var fs []field
	add := func(name, value string) {
		if value != "" {
			fs = append(fs, field{name, value})
		}
	}
	if e.Value != nil {
		fs = append(fs, field{"value", *e.Value})
	}
	if e.Kind == lab.Send { // a write's id is filled in by the engine: noise here
		add("id", e.ID)
	}
	add("request", e.Request)
	add("op", e.Op)
	if e.IsSplit() { // model 3: the lease service grants a scope already held
		add("split", "true")
	}
	if e.IsRMW() { // model 3: the value is computed from the writer's read
		add("rmw", "true")
	}
	if r.showScope() {
		add("scope", e.Scope)
	}
	if r.showResource() || e.Kind == lab.Restart {
		add("resource", e.Resource)
	}
	return fs
}

// everyOrdering begins the paragraph of a description that says what
// exploring every ordering shows; the pages set it apart and link it.
const everyOrdering = "Every ordering:"

// hasOriginal reports whether a description holds an original's words,
// labelled as such (export.CutOriginal).
func hasOriginal(desc string) bool {
	for _, p := range paragraphs(desc) {
		if _, _, ok := export.CutOriginal(p); ok {
			return true
		}
	}
	return false
}

// paragraphs splits a description at blank lines, as the Markdown export does.
func paragraphs(s string) []string { return export.Paragraphs(s) }

// plural writes "1 event", "3 events", "2 policies".
func plural(n int, word string) string { return export.Plural(n, word) }

// twoDigits numbers the gallery in teaching order: 01, 02, ...
func twoDigits(n int) string {
	if n < 10 {
		return "0" + itoa(n)
	}
	return itoa(n)
}

// policyNames lists policies as "unfenced, fenced".
func policyNames(ps []lab.Policy) string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = string(p)
	}
	return strings.Join(names, ", ")
}

// unknownWords says which asked-for policy names the page left out, and
// what it shows instead.
func unknownWords(r *Report) string {
	quoted := make([]string, len(r.Unknown))
	for i, n := range r.Unknown {
		quoted[i] = "“" + n + "”"
	}
	what := "No policy is called " + strings.Join(quoted, " or ")
	if r.UnknownMore > 0 {
		what += " (nor by " + plural(r.UnknownMore, "other name") + " the link gives)"
	}
	return what + ", so the page leaves it out and shows " + policyNames(r.Policies) +
		". The policies are " + policyNames(lab.Policies()) + "."
}

// casLikeUnfenced says why cas decides as unfenced does on a scenario
// none of whose writes is a read-modify-write: cas refuses only such a
// write whose read went stale, and lets every other write in unchecked.
// "" when some write is one, or for another policy.
func casLikeUnfenced(s *lab.Scenario, p lab.Policy) string {
	if p != lab.CAS {
		return ""
	}
	for _, e := range s.Events {
		if (e.Kind == lab.Write || e.Kind == lab.Send) && e.IsRMW() {
			return ""
		}
	}
	return "Here cas decides as unfenced does: it checks only a read-modify-write (\"rmw\": true), and no write of this scenario is one."
}

// darkStyles are the stylesheets whose colours follow site.css's
// variables, so that a page drawn by them alone turns dark with the
// reader's system; a page with any other keeps the light colours.
var darkStyles = []string{"css/diagram.css", "css/explore.css", "css/observed.css", "css/import.css", "css/editor.css",
	"css/present.css", "css/room.css"}

// darkOK reports whether the page may turn dark (site.css's dark mode).
func (h Head) darkOK() bool {
	for _, s := range h.Styles {
		if !slices.Contains(darkStyles, s) {
			return false
		}
	}
	return true
}
