package diagram

import (
	"strconv"

	"fencelab/lab"
	"fencelab/views/export"
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
func plural(n int, word string) string { return export.Plural(n, word) }

// worstOf is the most severe class among violations, or "".
func worstOf(vs []lab.Violation) lab.Class { return lab.Summary{Violations: vs}.Worst() }

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }
