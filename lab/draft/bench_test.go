package draft_test

import (
	"fmt"
	"strings"
	"testing"

	"fencelab/lab"
	"fencelab/lab/draft"
)

// BenchmarkCompile500 compiles a 500-event draft: the JSON round trip
// through lab.Parse that is the editor's validation (lab/doc.go).
func BenchmarkCompile500(b *testing.B) {
	var events []string
	for i := range 250 {
		events = append(events, fmt.Sprintf(`{"kind":"acquire","actor":"w%d"}`, i%8),
			fmt.Sprintf(`{"kind":"write","actor":"w%d","value":"v%d"}`, i%8, i))
	}
	src := `{"version":1,"title":"t","events":[` + strings.Join(events, ",") + `]}`
	sc, err := lab.Parse(strings.NewReader(src))
	if err != nil {
		b.Fatal(err)
	}
	d := draft.Of(sc, "")
	for b.Loop() {
		if _, err := draft.Compile(&d); err != nil {
			b.Fatal(err)
		}
	}
}
