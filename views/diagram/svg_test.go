package diagram

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"fencelab/lab"
	"fencelab/scenarios"
)

// svgDoc is what the tests read back from a rendered diagram.
type svgDoc struct {
	bands     []int          // data-step of each band, in document order
	classes   map[string]int // count of elements per class attribute
	arrows    int            // elements whose classes include arrow and write
	ids       map[string]string
	labelled  string // the svg's aria-labelledby
	described string // the svg's aria-describedby
	role      string
	viewBox   string
	text      string // all character data
	styled    bool   // a style attribute or <style> element: the CSP forbids them
}

// readSVG decodes the whole output as XML, failing on anything malformed.
func readSVG(t *testing.T, name string, out []byte) svgDoc {
	t.Helper()
	doc := svgDoc{classes: map[string]int{}, ids: map[string]string{}}
	dec := xml.NewDecoder(bytes.NewReader(out))
	var text strings.Builder
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: output is not XML: %v\n%s", name, err, out)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			doc.element(el)
		case xml.CharData:
			text.Write(el)
		}
	}
	doc.text = text.String()
	return doc
}

func (doc *svgDoc) element(el xml.StartElement) {
	if el.Name.Local == "style" || el.Name.Local == "script" {
		doc.styled = true
	}
	attr := map[string]string{}
	for _, a := range el.Attr {
		attr[a.Name.Local] = a.Value
	}
	if _, ok := attr["style"]; ok {
		doc.styled = true
	}
	if id, ok := attr["id"]; ok {
		doc.ids[id] = el.Name.Local
	}
	classes := strings.Fields(attr["class"])
	if attr["class"] != "" {
		doc.classes[attr["class"]]++
	}
	if el.Name.Local == "g" && slices.Contains(classes, "band") {
		var n int
		fmt.Sscan(attr["data-step"], &n)
		doc.bands = append(doc.bands, n)
	}
	if slices.Contains(classes, "arrow") && slices.Contains(classes, "write") {
		doc.arrows++
	}
	if el.Name.Local == "svg" {
		doc.labelled, doc.described = attr["aria-labelledby"], attr["aria-describedby"]
		doc.role, doc.viewBox = attr["role"], attr["viewBox"]
	}
}

// wantArrows counts the writes, deliveries and commits that reach a
// resource under policy p.
func wantArrows(tr *lab.Trace, p lab.Policy) int {
	n := 0
	for _, st := range tr.Steps {
		d := st.Outcomes.Of(p).Decision
		switch st.Event.Kind {
		case lab.Write, lab.Deliver:
			if d == lab.Accepted || d == lab.Rejected || d == lab.Suppressed || d == lab.Checked {
				n++
			}
		case lab.Commit:
			if d == lab.Applied {
				n++
			}
		}
	}
	return n
}

func renderPage(t testing.TB, s *lab.Scenario, tr *lab.Trace, p lab.Policy) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Inline(&b, s, tr, p, nil); err != nil {
		t.Fatalf("Inline(%q, %s): %v", s.Title, p, err)
	}
	return b.Bytes()
}

func renderFile(t testing.TB, s *lab.Scenario, tr *lab.Trace, p lab.Policy) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := SVG(&b, s, tr, p); err != nil {
		t.Fatalf("SVG(%q, %s): %v", s.Title, p, err)
	}
	return b.Bytes()
}

// library parses the built-ins once for the whole run: a parse per call
// cost more than most of the tests that asked for one scenario.
var library = sync.OnceValues(func() (*lab.Library, error) {
	return lab.LoadLibrary(scenarios.FS, scenarios.Order())
})

func builtin(t testing.TB, name string) *lab.Scenario {
	t.Helper()
	lib, err := library()
	if err != nil {
		t.Fatal(err)
	}
	b, ok := lib.Get(name)
	if !ok {
		t.Fatalf("no built-in scenario %q", name)
	}
	return b.Scenario
}

func parseScenario(t testing.TB, doc any) *lab.Scenario {
	t.Helper()
	src, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	s, err := lab.Parse(bytes.NewReader(src))
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, src)
	}
	return s
}

// generated is a random but valid timeline of n events by four actors
// over two resources, one of them unfenced and forgetful, with sends
// delivered late, early (skipped) or never, and commits.
func generated(t testing.TB, n int) *lab.Scenario {
	t.Helper()
	rng := rand.New(rand.NewPCG(40, 2))
	kinds := []lab.Kind{lab.Acquire, lab.Acquire, lab.Acquire, lab.Read, lab.Pause, lab.Resume, lab.Resume, lab.Expire, lab.Expire,
		lab.Renew, lab.Release, lab.Check, lab.Write, lab.Write, lab.Write, lab.Send, lab.Send, lab.Deliver, lab.Deliver, lab.Commit, lab.Restart, lab.Crash}
	var events []map[string]any
	var sends []string
	for len(events) < n {
		k := kinds[rng.IntN(len(kinds))]
		e := map[string]any{"kind": k, "actor": fmt.Sprintf("w%d", rng.IntN(4))}
		switch k {
		case lab.Write, lab.Send:
			e["value"] = fmt.Sprintf("v%d", len(events))
			e["resource"] = []string{"result", "mail"}[rng.IntN(2)]
			if k == lab.Send {
				e["id"] = fmt.Sprintf("q%d", len(sends))
				sends = append(sends, e["id"].(string))
			}
		case lab.Deliver, lab.Commit:
			if len(sends) == 0 {
				continue
			}
			delete(e, "actor")
			e["request"] = sends[rng.IntN(len(sends))]
		case lab.Restart:
			delete(e, "actor")
			e["resource"] = "result"
		}
		events = append(events, e)
	}
	return parseScenario(t, map[string]any{
		"version": 1, "title": "Generated: " + fmt.Sprint(n) + " events",
		"resources": map[string]any{"result": map[string]any{"fencing": true, "remember": "memory"}, "mail": map[string]any{"fencing": false}},
		"events":    events,
	})
}
