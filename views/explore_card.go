package views

import (
	"io"

	"fencelab/views/class"
	"fencelab/views/diagram"
)

// ExploreCardPNG writes the link-preview card of an exploration: for
// each policy its bar of orderings by worst class, in the chart's colours,
// and its worst class in the chart's words, so that the picture says what
// the page and its description say.
func ExploreCardPNG(w io.Writer, r *ExploreResult) error {
	kicker := "fencelab · every ordering: " + orderingsText(r.X.Orderings)
	if !r.X.Complete {
		kicker = "fencelab · " + orderingsText(r.X.Orderings) + " explored"
	}
	bars := make([]diagram.Bar, 0, len(r.Rows))
	for _, row := range r.Rows {
		b := diagram.Bar{Label: string(row.Policy), Words: row.cardWords(r), Bad: row.worst() != ""}
		for _, s := range r.segments(row) {
			b.Parts = append(b.Parts, diagram.BarPart{Share: s.W, Fill: classFill(s.Class)})
		}
		bars = append(bars, b)
	}
	return diagram.BarsPNG(w, kicker, r.Scenario.Title, bars)
}

// cardWords is the row's worst class in short words, with its count: the
// card has a line for it, the page a sentence.
func (row ExploreRow) cardWords(r *ExploreResult) string {
	c := row.worst()
	if c == "" {
		return verdictWords(c, 0) + " in all"
	}
	words := verdictWords(c, 0)
	if class.Of(c).Comma { // as worstWords says them: "… write in, in 50"
		words += ","
	}
	return words + " in " + countText(row.byClass(c))
}
