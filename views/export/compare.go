package export

import (
	"fmt"
	"io"
	"strings"

	"fencelab/lab"
)

// Side is one run of a comparison: what it is called, where it lives and
// what it replays to.
type Side struct {
	Name     string // the built-in's name or "r/ID"
	Title    string
	Link     string // its page, absolute or a path
	Scenario *lab.Scenario
	Trace    *lab.Trace
}

// Comparison sets two runs side by side, step by step: the events, and
// per policy the verdicts and each step's decision, each row marked where
// the two differ. Step n of one is set beside step n of the other.
type Comparison struct {
	A, B     Side
	Policies []lab.Policy
	Events   []CompareRow     // a row per step of the longer run
	Verdicts []CompareVerdict // a row per policy
	Steps    []CompareStep    // a row per step of the longer run
}

// CompareRow is one step's event in each run; "" where a run is shorter.
type CompareRow struct {
	Index   int
	A, B    string
	Differs bool
}

// CompareVerdict is one policy's verdict in each run.
type CompareVerdict struct {
	Policy  lab.Policy
	A, B    string
	Differs bool
}

// CompareStep is one step's decision under each policy in each run.
type CompareStep struct {
	Index   int
	Cells   []CompareCell // one per policy, in the order of Policies
	Differs bool
}

// CompareCell is a step's decision (and reason) under one policy in each run.
type CompareCell struct {
	A, B    string
	Differs bool
}

// Compare sets a beside b under policies.
func Compare(a, b Side, policies []lab.Policy) *Comparison {
	c := &Comparison{A: a, B: b, Policies: policies}
	n := max(len(a.Trace.Steps), len(b.Trace.Steps))
	step := func(t *lab.Trace, i int) *lab.Step {
		if i < len(t.Steps) {
			return &t.Steps[i]
		}
		return nil
	}
	for i := range n {
		sa, sb := step(a.Trace, i), step(b.Trace, i)
		row := CompareRow{Index: i + 1, A: eventText(sa), B: eventText(sb)}
		row.Differs = row.A != row.B
		c.Events = append(c.Events, row)
		st := CompareStep{Index: i + 1}
		for _, p := range policies {
			cell := CompareCell{A: decisionText(sa, p), B: decisionText(sb, p)}
			cell.Differs = cell.A != cell.B
			st.Differs = st.Differs || cell.Differs
			st.Cells = append(st.Cells, cell)
		}
		c.Steps = append(c.Steps, st)
	}
	for _, p := range policies {
		v := CompareVerdict{Policy: p, A: Verdict(a.Trace.Summary[p]), B: Verdict(b.Trace.Summary[p])}
		v.Differs = v.A != v.B
		c.Verdicts = append(c.Verdicts, v)
	}
	return c
}

// Differs counts the rows of each part that differ.
func (c *Comparison) Differs() (events, verdicts, steps int) {
	for _, r := range c.Events {
		if r.Differs {
			events++
		}
	}
	for _, v := range c.Verdicts {
		if v.Differs {
			verdicts++
		}
	}
	for _, s := range c.Steps {
		if s.Differs {
			steps++
		}
	}
	return events, verdicts, steps
}

func eventText(st *lab.Step) string {
	if st == nil {
		return ""
	}
	if st.Event.Actor == "" {
		return lab.DescribeEvent(st.Event)
	}
	return st.Event.Actor + " " + lab.DescribeEvent(st.Event)
}

func decisionText(st *lab.Step, p lab.Policy) string {
	if st == nil {
		return ""
	}
	o := st.Outcomes.Of(p)
	return string(o.Decision) + ": " + strings.TrimPrefix(o.Reason, string(o.Decision)+": ")
}

// CompareMarkdown writes the comparison for a postmortem: which two runs,
// the verdicts that differ and the events and steps, each row marked ≠
// where the runs differ.
func CompareMarkdown(w io.Writer, c *Comparison) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s\n\n", mdLine("Compared: "+c.A.Title+" / "+c.B.Title))
	fmt.Fprintf(&b, "- **A**: %s (<%s>)\n- **B**: %s (<%s>)\n\n", mdCell(c.A.Title), c.A.Link, mdCell(c.B.Title), c.B.Link)
	ev, vd, st := c.Differs()
	fmt.Fprintf(&b, "%d of %d events, %d of %d verdicts and %d of %d steps differ.\n\n",
		ev, len(c.Events), vd, len(c.Verdicts), st, len(c.Steps))
	b.WriteString("### Verdicts\n\n| policy | A | B | |\n|---|---|---|---|\n")
	for _, v := range c.Verdicts {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", v.Policy, mdCell(v.A), mdCell(v.B), mark(v.Differs))
	}
	b.WriteString("\n### Events\n\n| # | A | B | |\n|--:|---|---|---|\n")
	for _, r := range c.Events {
		fmt.Fprintf(&b, "| %d | %s | %s | %s |\n", r.Index, mdCell(r.A), mdCell(r.B), mark(r.Differs))
	}
	b.WriteString("\n### Step by step\n\n| # |")
	sep := "|--:|"
	for _, p := range c.Policies {
		fmt.Fprintf(&b, " %s A | %s B |", p, p)
		sep += "---|---|"
	}
	b.WriteString(" |\n" + sep + "---|\n")
	for _, s := range c.Steps {
		fmt.Fprintf(&b, "| %d |", s.Index)
		for _, cell := range s.Cells {
			fmt.Fprintf(&b, " %s | %s |", mdCell(cell.A), mdCell(cell.B))
		}
		fmt.Fprintf(&b, " %s |\n", mark(s.Differs))
	}
	_, err := io.WriteString(w, strings.Map(replaceControl, b.String()))
	return err
}

func mark(differs bool) string {
	if differs {
		return "≠"
	}
	return ""
}
