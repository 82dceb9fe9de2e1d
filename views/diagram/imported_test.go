package diagram

import (
	"bytes"
	"image/png"
	"strings"
	"testing"

	"fencelab/lab"
)

// TestImportedDiagram draws a policy's replay of an imported timeline: a
// column says what the logs say the resource did at each observed step,
// marked where the replay decided otherwise, and the caption, the title
// and the description say which replay is drawn and what the resource
// behaved like. The plain diagram has none of it.
func TestImportedDiagram(t *testing.T) {
	t.Parallel()
	s := builtin(t, "paused-worker")
	tr := lab.Replay(s)
	// Every step the resource decided: the logs say it applied each one.
	im := &Imported{Observed: map[int]string{}, Behaved: lab.Unfenced}
	differs := 0
	for _, st := range tr.Steps {
		if st.Event.Kind == lab.Deliver || st.Event.Kind == lab.Write {
			im.Observed[st.Index] = "applied"
			if !agreesWith("applied", st.Outcomes.Of(lab.Fenced).Decision) {
				differs++
			}
		}
	}
	if len(im.Observed) == 0 || differs == 0 {
		t.Fatalf("paused-worker: %d observed steps, %d where fenced differs; the test needs both", len(im.Observed), differs)
	}
	var plain, imported bytes.Buffer
	if err := SVG(&plain, s, tr, lab.Fenced); err != nil {
		t.Fatal(err)
	}
	if err := ImportedSVG(&imported, s, tr, lab.Fenced, im); err != nil {
		t.Fatal(err)
	}
	doc := readSVG(t, "imported", imported.Bytes())
	if got := doc.classes["observed differs"]; got != differs {
		t.Errorf("%d steps marked as differing, want %d", got, differs)
	}
	if got := doc.classes["observed agrees"] + doc.classes["observed differs"]; got != len(im.Observed) {
		t.Errorf("%d steps in the logs' column, want %d", got, len(im.Observed))
	}
	for _, want := range []string{"what the logs say", "logs: applied (differs)", "the imported timeline replayed under fenced",
		"The resource behaved like unfenced.", "The logs: like unfenced", "drawn: fenced's replay", "applied is the model's accepted"} {
		if !strings.Contains(doc.text, want) {
			t.Errorf("the imported diagram lacks %q", want)
		}
	}
	if p := readSVG(t, "plain", plain.Bytes()); strings.Contains(p.text, "logs:") || p.classes["observed agrees"] > 0 {
		t.Errorf("the plain diagram has the logs' column")
	}
	if w, _ := ImportedBounds(s, tr, lab.Fenced, im); w <= func() int { w, _ := Bounds(s, tr, lab.Fenced); return w }() {
		t.Errorf("the imported diagram is no wider than the plain one: the logs' column takes no room")
	}
	var card bytes.Buffer
	if err := ImportedPNG(&card, s, tr, lab.Fenced, Card, im); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&card)
	if err != nil || img.Bounds().Dx() != CardWidth || img.Bounds().Dy() != CardHeight {
		t.Fatalf("the imported card does not decode at %d×%d: %v", CardWidth, CardHeight, err)
	}
	// Its strip is in the colour of what happened: unfenced's violations,
	// although fenced's replay, which is drawn, violates nothing.
	if r, g, b, _ := img.At(CardWidth/2, 4).RGBA(); r>>8 != 0xb3 || g>>8 != 0x14 || b>>8 != 0x1f {
		t.Errorf("the card's strip is #%02x%02x%02x, want unfenced's red #b3141f", r>>8, g>>8, b>>8)
	}
}
