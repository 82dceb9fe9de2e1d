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
	evil := "v\n```\n%% ;#<b>:"
	sc.Events[1].Value = &evil
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
	// The one fence is the export's own Mermaid block, and no text closes it early.
	inMermaid := false
	for i, l := range lines {
		switch {
		case !inMermaid && l == "```mermaid":
			inMermaid = true
		case inMermaid && l == "```":
			inMermaid = false
		case strings.HasPrefix(strings.TrimSpace(l), "~~~") || strings.HasPrefix(strings.TrimSpace(l), "```") || strings.HasPrefix(l, "# "):
			t.Errorf("Markdown line %d = %q: text opened a code block or a heading", i+1, l)
		}
	}
	if !strings.Contains(out, "```mermaid\n") || inMermaid {
		t.Errorf("Markdown has no closed Mermaid block:\n%s", out)
	}
	for _, r := range out {
		if r != '\n' && (r < 0x20 || 0x7f <= r && r <= 0x9f) {
			t.Errorf("Markdown has the control character %U:\n%s", r, out)
		}
	}
}
