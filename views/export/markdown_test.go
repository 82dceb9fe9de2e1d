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

// TestMarkdownModel3: with cas chosen, the export has its column, names
// lost-update with its class, and shows versions and a stale rmw write.
func TestMarkdownModel3(t *testing.T) {
	s := builtin(t, "stale-read-fresh-token")
	var buf bytes.Buffer
	if err := Markdown(&buf, s, lab.Replay(s), []lab.Policy{lab.Fenced, lab.CAS}, "", ""); err != nil {
		t.Fatalf("Markdown: %v", err)
	}
	out := buf.String()
	for _, want := range []string{
		"| fenced | cas |",
		"already accepted (stale: read v0, now v1) · balance = balance 5 (43); versions: balance 2",
		"**rejected** B's write landed after A read balance (version 0, now 1) · ",
		"- **fenced**: final balance = balance 5; corrupting: lost-update at step 9",
		"- **cas**: final balance = balance 7; no violations",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("Markdown(stale-read-fresh-token, fenced+cas) lacks %q:\n%s", want, out)
		}
	}
}
