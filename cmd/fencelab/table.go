package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"fencelab/lab"
	"fencelab/views/export"
)

// writeTable prints the per-step table with aligned columns, then each
// policy's final values and violations.
func writeTable(w io.Writer, s *lab.Scenario, t *lab.Trace, policies []lab.Policy) error {
	fmt.Fprintf(w, "%s\n\n", s.Title)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := []string{"#", "actor", "event", "token"}
	for _, p := range policies {
		head = append(head, string(p), "after")
	}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, st := range t.Steps {
		row := []string{fmt.Sprint(st.Index), st.Event.Actor, lab.DescribeEvent(st.Event), tokenText(st.Token)}
		for _, p := range policies {
			o := st.Outcomes.Of(p)
			row = append(row, lab.ReasonWithDecision(o), export.Values(o.Values, o.Tokens))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	for _, p := range policies {
		fmt.Fprintf(w, "%s: %s\n", p, export.Verdict(t.Summary[p]))
	}
	for _, wn := range t.Warnings {
		fmt.Fprintf(w, "warning: step %d skipped: %s\n", wn.Step, wn.Message)
	}
	return nil
}

func tokenText(t *int64) string {
	if t == nil {
		return "-"
	}
	return fmt.Sprint(*t)
}
