package export

import (
	"bytes"
	"strings"
	"testing"

	"fencelab/lab"
)

// TestMarkdownTextCannotBreakTheDocument writes a run whose text (as saved
// before control characters were refused) tries to end the heading, open a
// code block and act on a terminal: the heading stays one line, no line
// opens a fence, and no control character reaches the file.
func TestMarkdownTextCannotBreakTheDocument(t *testing.T) {
	t.Parallel()
	sc, err := lab.Parse(strings.NewReader(`{"version":1,"title":"t","events":[
		{"actor":"A","kind":"acquire"},{"actor":"A","kind":"write","value":"v"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	sc.Title = "Evil\n~~~\n# owned \x1b[2J\x00"
	sc.Description = "first\n\n~~~ sh\nrm -rf /\n\n```\n\u009b31m"
	sc.Events[1].Note = "x\x07"
	tr := lab.Replay(sc)
	var buf bytes.Buffer
	if err := Markdown(&buf, sc, tr, []lab.Policy{lab.Unfenced}, "http://lab.example/r/x", ""); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	lines := strings.Split(out, "\n")
	if !strings.HasPrefix(lines[0], "## Evil") || lines[1] != "" {
		t.Errorf("Markdown heading of a title with newlines: first lines %q, want one heading line then a blank", lines[:2])
	}
	for i, l := range lines {
		if strings.HasPrefix(l, "~~~") || strings.HasPrefix(l, "```") || strings.HasPrefix(l, "# ") {
			t.Errorf("Markdown line %d = %q: text opened a code block or a heading", i+1, l)
		}
	}
	for _, r := range out {
		if r != '\n' && (r < 0x20 || 0x7f <= r && r <= 0x9f) {
			t.Errorf("Markdown has the control character %U:\n%s", r, out)
		}
	}
}
