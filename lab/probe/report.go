package probe

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"fencelab/lab"
)

// WriteText prints a result for a terminal: the table of steps, expected
// beside observed, then the verdict and the first divergence.
func WriteText(w io.Writer, r *Result) error {
	fmt.Fprintf(w, "%s\n%s probe of %s as %s (remembers %s)\n", r.Scenario, r.Mode, r.Target, r.Policy, r.Remember)
	for _, o := range r.Overrides {
		fmt.Fprintf(w, "note: %s\n", o)
	}
	fmt.Fprintln(w)
	steps := r.Steps
	if r.Orderings != nil {
		writeOrderingsText(w, r.Orderings)
		steps = r.Orderings.FirstSteps
	}
	if r.Concurrent != nil {
		writeConcurrentText(w, r.Concurrent, r.SQL)
	}
	if len(steps) > 0 {
		if err := writeStepsText(w, steps); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	_, err := fmt.Fprintln(w, verdictLine(r))
	return err
}

func writeStepsText(w io.Writer, steps []Step) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tactor\tevent\trequest\texpected\tobserved\t")
	for _, st := range steps {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", st.Index, dash(st.Event.Actor), lab.DescribeEvent(st.Event),
			requestText(st), ObservationText(st.Expected), ObservationText(st.Observed), mark(st))
	}
	return tw.Flush()
}

// requestText is the step's request, with the version condition of an
// rmw write under cas: "POST /writes expect_version=1", or a SQL
// receiver's "SQL write CompleteJob expect_version=1".
func requestText(st Step) string {
	if st.ExpectVersion == nil {
		return dash(st.Request)
	}
	return st.Request + " expect_version=" + strconv.FormatInt(*st.ExpectVersion, 10)
}

func writeOrderingsText(w io.Writer, o *OrderingsResult) {
	seed := ""
	if o.Seed != nil {
		seed = fmt.Sprintf(" drawn with --seed %d", *o.Seed)
	}
	fmt.Fprintf(w, "orderings: %s requested%s; %d played, %d disagree, %d not testable", o.Requested, seed, o.Tried, o.Disagreed, o.NotTested)
	if o.Stopped {
		fmt.Fprint(w, " (interrupted)")
	}
	fmt.Fprintln(w)
	if o.FirstOrder != nil {
		fmt.Fprintf(w, "the first ordering that disagrees, step by step:\n\n")
	}
}

func writeConcurrentText(w io.Writer, c *ConcurrentResult, sql *SQLFile) {
	fmt.Fprintf(w, "%d workers, %d requests in %.2f s: %.0f requests/s (%d applied, %d rejected, %d suppressed, %d failed)\n",
		c.Workers, c.Requests, c.Seconds, c.PerSecond, c.Applied, c.Rejected, c.Suppressed, c.Errors)
	if c.GaveUp > 0 {
		fmt.Fprintf(w, "gave up: %d writes still failed to serialize after every retry (--retries); neither applied nor rejected\n", c.GaveUp)
	}
	if c.Final != nil {
		fmt.Fprintf(w, "final: the resource holds %s%s\n", holdingWords(c.Final.Value, c.Final.Token), atVersion(c.Final.Version))
	}
	if c.StoppedEarly {
		fmt.Fprintln(w, "stopped early at the first violation")
	}
	if v := c.Violation; v != nil && v.Before != nil {
		fmt.Fprintf(w, "\nthe first violating pair:\n  %s\n  %s\n", recordText(sql, v.Before), recordText(sql, v.After))
	}
	fmt.Fprintln(w)
}

// recordText is one request of a concurrent run, named as the receiver
// ran it: "POST /writes", or a SQL receiver's "SQL write CompleteJob".
func recordText(sql *SQLFile, r *Record) string {
	what := fmt.Sprintf("%s %q token=%d", sql.RequestName("POST /writes"), r.Value, r.Token)
	if r.Op != "" {
		what += " op=" + r.Op
	}
	if r.Expect != nil {
		what += " expect_version=" + strconv.FormatInt(*r.Expect, 10)
	}
	if r.Grant {
		what = fmt.Sprintf("%s token=%d", sql.RequestName("POST /grants"), r.Token)
	}
	return fmt.Sprintf("#%d worker %d: %s sent at %s, answered %s at %s", r.Seq, r.Worker, what, ms(r.SentAt), r.Outcome, ms(r.AnsweredAt))
}

func verdictLine(r *Result) string {
	switch r.Verdict {
	case Agree:
		return "AGREE: the receiver did what the model expects of " + string(r.Policy) + "."
	case NotTestable:
		return "NOT TESTABLE: " + strings.TrimPrefix(r.Divergence, "not testable against this receiver: ")
	}
	return "DISAGREE: " + r.Divergence
}

// ObservationText is an outcome with the resource after it, as in
// `applied "new-result" @42`, and its version where the model expects one
// (cas): `applied "balance 150" @42, version 2`.
func ObservationText(o *Observation) string {
	if o == nil {
		return "-"
	}
	s := o.Outcome
	if o.Value != nil || o.Token != nil {
		// What the resource holds after the answer, set apart from the
		// outcome: "rejected; holds new-result @42" (not "rejected
		// new-result", which reads as if new-result were refused).
		v := "empty"
		if o.Value != nil {
			v = valueWord(*o.Value)
		}
		s += "; holds " + v
		if o.Token != nil {
			s += " @" + strconv.FormatInt(*o.Token, 10)
		}
	}
	return s + atVersion(o.Version)
}

// atVersion is ", version 3", or nothing when there is no version.
func atVersion(v *int64) string {
	if v == nil {
		return ""
	}
	return ", version " + strconv.FormatInt(*v, 10)
}

func mark(st Step) string {
	switch {
	case st.Expected == nil:
		return ""
	case st.Agree:
		return "ok"
	}
	return "DIFFERS"
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// WriteMarkdown writes a result for a postmortem.
func WriteMarkdown(w io.Writer, r *Result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## Probe: %s\n\n", md(r.Scenario))
	fmt.Fprintf(&b, "%s probe of `%s` as **%s** (remembers %s).\n\n", r.Mode, md(r.Target), r.Policy, r.Remember)
	for _, o := range r.Overrides {
		fmt.Fprintf(&b, "- note: %s\n", md(o))
	}
	if len(r.Overrides) > 0 {
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "**%s**\n\n", md(verdictLine(r)))
	steps := r.Steps
	if o := r.Orderings; o != nil {
		seed := ""
		if o.Seed != nil {
			seed = fmt.Sprintf(" (drawn with seed %d)", *o.Seed)
		}
		fmt.Fprintf(&b, "Orderings: %s requested%s; %d played, %d "+
			"disagree, %d not testable.\n\n", o.Requested, seed, o.Tried, o.Disagreed, o.NotTested)
		steps = o.FirstSteps
	}
	if c := r.Concurrent; c != nil {
		fmt.Fprintf(&b, "%d workers, %d requests in %.2f s: %.0f requests/s.\n\n", c.Workers, c.Requests, c.Seconds, c.PerSecond)
		if v := c.Violation; v != nil && v.Before != nil {
			fmt.Fprintf(&b, "- %s\n- %s\n\n", md(recordText(r.SQL, v.Before)), md(recordText(r.SQL, v.After)))
		}
	}
	writeSQLMarkdown(&b, r.SQL)
	if len(steps) > 0 {
		b.WriteString("| # | actor | event | request | expected | observed | |\n|--:|---|---|---|---|---|---|\n")
		for _, st := range steps {
			m := mark(st)
			if m == "DIFFERS" {
				m = "**differs**"
			}
			fmt.Fprintf(&b, "| %d | %s | %s | %s | %s | %s | %s |\n", st.Index, md(st.Event.Actor), md(lab.DescribeEvent(st.Event)),
				md(requestText(st)), md(ObservationText(st.Expected)), md(ObservationText(st.Observed)), m)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// md escapes text for a Markdown table cell.
func md(s string) string {
	return strings.NewReplacer("|", `\|`, "*", `\*`, "_", `\_`, "`", "\\`", "<", "&lt;", ">", "&gt;", "\n", " ").Replace(s)
}

// writeSQLMarkdown adds the statement file a SQL receiver ran.
func writeSQLMarkdown(b *strings.Builder, q *SQLFile) {
	if q == nil {
		return
	}
	iso := ""
	if q.Isolation != "" {
		iso = ", isolation " + q.Isolation
	}
	fence := "```"
	for strings.Contains(q.Text, fence) {
		fence += "`"
	}
	fmt.Fprintf(b, "Statements: `%s` on %s%s.\n\n", md(q.Name), q.Engine, iso)
	if len(q.Queries) > 0 {
		b.WriteString("| query | line | plays | placeholders |\n|---|---|---|---|\n")
		for _, qq := range q.Queries {
			roles := strings.Join(qq.Roles, ", ")
			if roles == "" {
				roles = "none"
			}
			fmt.Fprintf(b, "| %s | %d | %s | %s |\n", md(qq.Name), qq.Line, roles, md(strings.Join(qq.Placeholders, " ")))
		}
		b.WriteString("\n")
	}
	for _, m := range []struct {
		name  string
		items []string
	}{{"Role map", q.Roles}, {"Parameter map", q.Params}, {"Columns", q.Columns}} {
		if len(m.items) > 0 {
			fmt.Fprintf(b, "%s: %s.\n\n", m.name, md(strings.Join(m.items, " ")))
		}
	}
	fmt.Fprintf(b, "%ssql\n%s\n%s\n\n", fence, strings.TrimRight(q.Text, "\n"), fence)
}

// valueWord is a value as the probe's columns show it: bare when it is one
// plain word, quoted when it is empty, has spaces or quotes, or could be
// taken for "empty".
func valueWord(v string) string {
	if v == "" || v == "empty" || strings.ContainsAny(v, " \t\n\"'@;") {
		return strconv.Quote(v)
	}
	return v
}
