package docs

import (
	"bytes"
	"flag"
	"os"
	"testing"

	"fencelab/lab"
	"fencelab/scenarios"
	"fencelab/views/diagram"
)

var update = flag.Bool("update", false, "draw the pictures of docs/ again")

// TestPicturesAreFresh draws the pictures of docs/ that the lab draws in
// Go (no browser: the same bytes on every machine) and compares them with
// the files: a change to the card or the diagram fails here until
// `go test ./docs -run TestPicturesAreFresh -update` draws them again.
func TestPicturesAreFresh(t *testing.T) {
	t.Parallel()
	lib, err := lab.LoadLibrary(scenarios.FS, scenarios.Order())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := lib.Get("paused-worker")
	tr := lab.Replay(b.Scenario)
	pictures := map[string]func(*bytes.Buffer) error{
		// sharing.md: the link preview of a run, unfenced beside fenced
		"card.png": func(w *bytes.Buffer) error { return diagram.ComparePNG(w, b.Scenario, tr, lab.Unfenced, lab.Fenced) },
		// classroom.md: the whole diagram under unfenced, as ?size=full draws it
		"diagram.png": func(w *bytes.Buffer) error { return diagram.PNG(w, b.Scenario, tr, lab.Unfenced, diagram.Full) },
	}
	for name, draw := range pictures {
		var buf bytes.Buffer
		if err := draw(&buf); err != nil {
			t.Fatalf("draw %s: %v", name, err)
		}
		if *update {
			if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		old, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(old, buf.Bytes()) {
			t.Errorf("docs/%s is out of date: go test ./docs -run TestPicturesAreFresh -update draws it again", name)
		}
	}
}
