package diagram

import (
	"sort"
	"strconv"
	"strings"

	"fencelab/lab"
)

// The pages have their own copies of these few words (package views):
// the diagram must read the same as the table beside it, but a picture
// package importing the pages' helpers would pull templ in.

// token renders a token, or a dash for none.
func token(t *int64) string {
	if t == nil {
		return "—"
	}
	return strconv.FormatInt(*t, 10)
}

// plural writes "1 event", "3 events", "2 policies".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	if stem, ok := strings.CutSuffix(word, "y"); ok {
		return itoa(n) + " " + stem + "ies"
	}
	return itoa(n) + " " + word + "s"
}

// worstOf is the most severe class among violations, or "".
func worstOf(vs []lab.Violation) lab.Class { return lab.Summary{Violations: vs}.Worst() }

// resourceNames lists the resources in name order, as the table does:
// from the scenario or, failing that, from the values of the first step.
func resourceNames(s *lab.Scenario, t *lab.Trace) []string {
	var names []string
	for name := range s.Resources {
		names = append(names, name)
	}
	if len(names) == 0 && len(t.Steps) > 0 && len(t.Policies) > 0 {
		for name := range t.Steps[0].Outcomes.Of(t.Policies[0]).Values {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }
