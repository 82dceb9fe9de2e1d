package views

import (
	"slices"
	"strings"

	"fencelab/lab"
)

// Share is what a page tells the sites a link to it is pasted into (Open
// Graph and Twitter card tags, the oEmbed discovery link). Every address
// is absolute, built on the lab's configured base URL, or empty when the
// lab has none: then only the words are given.
type Share struct {
	Title       string
	Description string // one line: the lesson, or the verdicts
	URL         string // the page's permanent (canonical) address
	Image       string // its 1200×630 picture
	ImageAlt    string
	OEmbed      string // the oEmbed endpoint's address for this page
}

// VerdictsLine sums up the chosen policies' verdicts in one line, for a
// link preview: "unfenced: 3 violations (stale-overwrite, …) · fenced: no
// invariant violated".
func VerdictsLine(t *lab.Trace, policies []lab.Policy) string {
	parts := make([]string, len(policies))
	for i, p := range policies {
		parts[i] = string(p) + ": " + violationsText(t.Summary[p].Violations)
	}
	return strings.Join(parts, " · ")
}

// violationsText is "no invariant violated" or "3 violations (a, b)",
// naming each kind once.
func violationsText(vs []lab.Violation) string {
	if len(vs) == 0 {
		return "no invariant violated"
	}
	var kinds []string
	for _, v := range vs {
		if k := string(v.Kind); !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	return plural(len(vs), "violation") + " (" + strings.Join(kinds, ", ") + ")"
}

// ExploreLine sums up an exploration in one line, for a link preview:
// each default policy's worst class in the words of the page's chart,
// "unfenced: corrupts data in 300 of 720 orderings · fenced: lets a
// deposed worker's write in, in 50 of 720 orderings". Counting every class
// together, as it once did, made a policy whose worst was a deposed
// write read like one that corrupts.
func ExploreLine(r *ExploreResult) string {
	var parts []string
	for _, row := range r.Rows {
		if row.Policy.Default() {
			parts = append(parts, string(row.Policy)+": "+row.worstText(r))
		}
	}
	return strings.Join(parts, " · ")
}

// worstText is the row's worst class in words, as its bar says it.
func (row ExploreRow) worstText(r *ExploreResult) string {
	c := row.worst()
	return worstWords(c, row.byClass(c), r.X.Orderings, r.X.Complete)
}
