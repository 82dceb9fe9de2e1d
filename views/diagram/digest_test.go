package diagram

import (
	"bytes"
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"fencelab/lab"
	"fencelab/scenarios"
)

var update = flag.Bool("update", false, "rewrite testdata/digests.txt")

// TestDigests pins the bytes of every picture of every built-in scenario
// under every policy (and an unknown one): the standalone SVG, the page's
// SVG in the scenario's order and in reverse, the card and the full PNG.
// A change to the drawing shows here as changed lines; rewrite them with
// -update once the pictures are checked by eye. With -short only the SVGs
// of shortDigests are checked: the PNGs and the other built-ins, most of
// the time, are left to the full run.
func TestDigests(t *testing.T) {
	t.Parallel()
	if *update && testing.Short() {
		t.Fatal("-update with -short would drop the PNGs' lines: rewrite without -short")
	}
	names := scenarios.Order()
	if testing.Short() {
		names = slices.DeleteFunc(names, func(n string) bool { return !slices.Contains(shortDigests, n) })
	}
	got := digests(t, names, !testing.Short())
	path := filepath.Join("testdata", "digests.txt")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if testing.Short() {
		want = []byte(shortLines(string(want), names))
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("picture digests (-want +got):\n%s", diff)
	}
}

// shortDigests are the built-ins whose SVGs -short checks: between them
// a violation and its fix, late deliveries, a suppressed retry, a broken
// receiver, a split grant and a stale read, so most kinds of mark are drawn.
var shortDigests = []string{"paused-worker", "delayed-request", "duplicate-retry", "racy-receiver", "stale-read-fresh-token", "split-brain"}

// variant is one way to draw a run, named as in testdata/digests.txt.
type variant struct {
	name  string
	write func(*bytes.Buffer) error
}

// digests is one line per scenario named, policy and variant with the
// SHA-256 of the picture; the PNGs only when png is set.
func digests(t *testing.T, names []string, png bool) string {
	t.Helper()
	var out strings.Builder
	for _, name := range names {
		s := builtin(t, name)
		tr := lab.Replay(s)
		reversed := actors(s)
		slices.Reverse(reversed)
		for _, p := range append(lab.Policies(), "nosuch") {
			variants := []variant{
				{"svg", func(b *bytes.Buffer) error { return SVG(b, s, tr, p) }},
				{"inline", func(b *bytes.Buffer) error { return Inline(b, s, tr, p, nil) }},
				{"inline-reversed", func(b *bytes.Buffer) error { return Inline(b, s, tr, p, reversed) }},
			}
			if png {
				variants = append(variants,
					variant{"card", func(b *bytes.Buffer) error { return PNG(b, s, tr, p, Card) }},
					variant{"full", func(b *bytes.Buffer) error { return PNG(b, s, tr, p, Full) }})
			}
			for _, v := range variants {
				var b bytes.Buffer
				if err := v.write(&b); err != nil {
					t.Fatalf("%s(%s, %s): %v", v.name, name, p, err)
				}
				fmt.Fprintf(&out, "%s %s %s %x\n", name, p, v.name, sha256.Sum256(b.Bytes()))
			}
		}
	}
	fmt.Fprintf(&out, "icon svg %x\n", sha256.Sum256(IconSVG()))
	return out.String()
}

// shortLines keeps the lines of the SVGs of the scenarios named, and the
// icon's, in their order.
func shortLines(digests string, names []string) string {
	var out strings.Builder
	for _, line := range strings.SplitAfter(digests, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.Contains(line, " full ") || strings.Contains(line, " card ") {
			continue
		}
		if f[0] == "icon" || slices.Contains(names, f[0]) {
			out.WriteString(line)
		}
	}
	return out.String()
}

// actors lists the scenario's actors in order of first appearance.
func actors(s *lab.Scenario) []string {
	var out []string
	for _, e := range s.Events {
		if e.Actor != "" && !slices.Contains(out, e.Actor) {
			out = append(out, e.Actor)
		}
	}
	return out
}
