package export

import (
	"strings"
	"unicode/utf8"

	"fencelab/lab"
)

// A copy of a scenario (an edited copy, a counterexample of the explorer,
// a probe's run) keeps its original's words only as the original's: one
// paragraph that begins with a label naming whose words they are and
// before what, so that no sentence of it reads as the copy's own. The
// pages set the label in bold and the paragraph apart; the Markdown export
// quotes it.

// The ways an original's words are labelled, as the label ends.
const (
	BeforeEdit       = ", before your edit:"
	BeforeReordering = ", before this reordering:"
	BeforeProbe      = ", before the probe's changes:" // lab/probe's OriginalLabel
)

var originalEnds = []string{BeforeEdit, BeforeReordering, BeforeProbe}

// LessonLabel is the label of whose lesson the words are: "paused-worker's
// lesson, before your edit:".
func LessonLabel(whose, before string) string {
	return whose + "'s lesson" + before
}

// Original labels desc as the original's: its paragraphs joined into one
// after label, cut short with "…" to the model's limit. Paragraphs of desc
// that are already an original's words stay as they are, after it. An
// empty desc gives "".
func Original(label, desc string) string {
	var own, kept []string
	for _, p := range Paragraphs(desc) {
		if _, _, ok := CutOriginal(p); ok {
			kept = append(kept, p)
		} else {
			own = append(own, strings.Join(strings.Fields(p), " "))
		}
	}
	var parts []string
	if len(own) > 0 {
		parts = append(parts, label+" "+strings.Join(own, " "))
	}
	parts = append(parts, kept...)
	return Cut(strings.Join(parts, "\n\n"), lab.MaxDescription)
}

// Cut shortens s to at most max characters, ending it with "…" when cut.
func Cut(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	return string([]rune(s)[:max-1]) + "…"
}

// CutOriginal splits a paragraph that holds an original's words into its
// label ("paused-worker's lesson, before your edit:") and the words; ok is
// false for a paragraph of the run's own.
func CutOriginal(para string) (label, rest string, ok bool) {
	i := strings.IndexByte(para, ':')
	if i < 0 || i > 240 {
		return "", para, false
	}
	label = para[:i+1]
	for _, end := range originalEnds {
		if strings.HasSuffix(label, end) {
			return label, strings.TrimSpace(para[i+1:]), true
		}
	}
	return "", para, false
}
