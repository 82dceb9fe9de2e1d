package lab

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fencelab/scenarios"
)

// TestVersionBumped keeps Version honest: a saved run keeps the trace of
// the Version it was saved under, so a trace that changes for the same
// scenario needs a new Version. goldenDigests records, per built-in, what
// it replays (its events and declarations) and the golden trace that
// Version gives for it, both without the lessons' words (notes, title,
// description), so rewording a lesson changes nothing here.
func TestVersionBumped(t *testing.T) {
	t.Parallel()
	lib, err := LoadLibrary(scenarios.FS, scenarios.Order())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]goldenDigest{}
	var stale, changed []string
	for _, b := range lib.List {
		d := goldenDigest{Input: digestOf(t, wordless(b.Scenario)), Trace: digestOf(t, goldenFile(t, b.Name))}
		got[b.Name] = d
		want, ok := goldenDigests[b.Name]
		switch {
		case !ok || want.Input != d.Input:
			stale = append(stale, b.Name) // a new or changed scenario: nothing saved replays it
		case want.Trace != d.Trace:
			changed = append(changed, b.Name)
		}
	}
	for name := range goldenDigests {
		if _, ok := got[name]; !ok {
			stale = append(stale, name)
		}
	}
	switch {
	case Version != goldenVersion:
		t.Errorf("lab.Version is %s, the golden digests are of %s: set goldenVersion and goldenDigests in version.go to\n%s",
			Version, goldenVersion, digestsLiteral(got))
	case len(changed) > 0:
		slices.Sort(changed)
		t.Errorf("the golden traces of %s changed, but lab.Version is still %s: bump lab.Version, then set goldenVersion and goldenDigests in version.go to\n%s",
			strings.Join(changed, ", "), Version, digestsLiteral(got))
	case len(stale) > 0:
		slices.Sort(stale)
		t.Errorf("built-ins %s are new, gone or replay other events: set goldenDigests in version.go to\n%s",
			strings.Join(stale, ", "), digestsLiteral(got))
	}
}

// wordless is the scenario's JSON without its words.
func wordless(s *Scenario) any {
	c := *s
	c.Title, c.Description = "", ""
	c.Events = slices.Clone(s.Events)
	for i := range c.Events {
		c.Events[i].Note = ""
	}
	return c
}

// goldenFile is the golden trace of the built-in name without the notes
// of its events.
func goldenFile(t *testing.T, name string) any {
	b, err := os.ReadFile(filepath.Join("testdata", "golden", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var tr map[string]any
	if err := json.Unmarshal(b, &tr); err != nil {
		t.Fatalf("golden trace of %s: %v", name, err)
	}
	steps, _ := tr["steps"].([]any)
	for _, st := range steps {
		if ev, ok := st.(map[string]any)["event"].(map[string]any); ok {
			delete(ev, "note")
		}
	}
	return tr
}

// digestOf is the first 16 hex digits of the SHA-256 of v's JSON (maps
// encode with sorted keys, so the same value has the same digest).
func digestOf(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

func digestsLiteral(m map[string]goldenDigest) string {
	var b strings.Builder
	fmt.Fprintf(&b, "const goldenVersion = %q\n\nvar goldenDigests = map[string]goldenDigest{\n", Version)
	for _, name := range SortedNames(m) {
		fmt.Fprintf(&b, "\t%q: {%q, %q},\n", name, m[name].Input, m[name].Trace)
	}
	b.WriteString("}")
	return b.String()
}
