package export

import (
	"bytes"
	"strings"
	"testing"

	"fencelab/lab"
	"fencelab/scenarios"
)

// TestMarkdownPlainCharacters: the export reads as plain text. A
// comparison is a code span with a plain "<"; what the user typed is
// escaped with backslashes where it would be markup, never with HTML
// entities.
func TestMarkdownPlainCharacters(t *testing.T) {
	t.Parallel()
	s := builtin(t, "paused-worker")
	s.Title = `Tokens <b>bold</b> & a < b, R&D &amp; 3 > 2`
	var buf bytes.Buffer
	if err := Markdown(&buf, s, lab.Replay(s), []lab.Policy{lab.Unfenced, lab.Fenced}, "https://lab.example/r/x", "https://lab.example/r/x.png?size=full"); err != nil {
		t.Fatalf("Markdown: %v", err)
	}
	out := buf.String()
	for _, want := range []string{
		"**rejected** `41 < 42` already accepted",
		"because `41 < 42`.",
		"## Tokens \\<b>bold\\</b> & a < b, R\\&D \\&amp; `3 > 2`\n",
		"![Space-time diagram of Tokens \\<b>bold\\</b> & a < b, R\\&D \\&amp; `3 > 2`](https://lab.example/r/x.png?size=full)\n",
		"Permanent link: <https://lab.example/r/x>",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, out)
		}
	}
	for _, entity := range []string{"&lt;", "&gt;", "&#"} {
		if strings.Contains(out, entity) {
			t.Errorf("Markdown writes the HTML entity %s:\n%s", entity, out)
		}
	}
}

func builtin(t testing.TB, name string) *lab.Scenario {
	t.Helper()
	lib, err := lab.LoadLibrary(scenarios.FS, scenarios.Order())
	if err != nil {
		t.Fatal(err)
	}
	b, ok := lib.Get(name)
	if !ok {
		t.Fatalf("no built-in scenario %q", name)
	}
	return b.Scenario
}
