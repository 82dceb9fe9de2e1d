package export

// Cell is a value written in a Markdown table cell or a list item: on one
// line, with the characters that would start markup escaped. What other
// exports add to this one (a saved import's steps and lines) goes
// through it.
func Cell(s string) string { return mdCell(replaceControlString(s)) }

func replaceControlString(s string) string {
	out := []rune(s)
	for i, r := range out {
		out[i] = replaceControl(r)
	}
	return string(out)
}
