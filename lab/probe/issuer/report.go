package issuer

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// rows are the report as label and value, in the table's order.
func (r *Report) rows() [][2]string {
	issuer := r.Issuer
	if r.Version != "" {
		issuer += " (" + r.Kind + " " + r.Version + ")"
	} else {
		issuer += " (" + r.Kind + ")"
	}
	started := "not the probe: no fault into the issuer"
	if r.StartedByProbe {
		started = "the probe (--start)"
	}
	faults := []string{}
	for _, f := range r.Faults {
		s := fmt.Sprintf("%s %s %s", f.Kind, f.Target, span(f.From, f.To))
		if f.Missed {
			s += " (missed)"
		}
		faults = append(faults, s)
	}
	out := [][2]string{
		{"issuer", issuer},
		{"started by", started},
		{"lock", r.Lock},
		{"workers", strconv.Itoa(r.Workers)},
		{"TTL", fmt.Sprintf("%g s asked, %g s granted", r.TTLAsked, r.TTL)},
		{"faults", orNone(strings.Join(faults, "; "))},
		{"into the issuer", strings.TrimPrefix(r.FaultsLine(), "faults injected into the issuer: ")},
		{"outages", orNone(spans(r.Outages))},
		{"operations", fmt.Sprintf("%d grants, %d refused, %d unknown, %d renewals, %d lost, %d releases, %d cut off at the end",
			r.Counts.Grants, r.Counts.Refused, r.Counts.Unknown, r.Counts.Renewals, r.Counts.Lost, r.Counts.Releases, r.Counts.CutOff)},
		{"1. tokens increase", r.ruleRow("backwards")},
		{"2. no token twice", r.ruleRow("duplicate")},
	}
	if w := r.Writes; w != nil {
		rec := "held"
		if w.Receiver != "" {
			rec = "BROKEN: " + w.Receiver
		}
		out = append(out, [2]string{"4. the receiver", rec})
	}
	for _, a := range r.AfterFaults {
		label := "3. after " + a.What
		if a.Target != "" {
			label += " " + a.Target
		}
		label += " " + span(a.From, a.To)
		out = append(out, [2]string{label, afterWords(a)})
	}
	if len(r.AfterFaults) == 0 {
		out = append(out, [2]string{"3. after each fault", "no fault or outage"})
	}
	out = append(out,
		[2]string{"overlaps", fmt.Sprintf("%d, longest %.2f s, total %.2f s (reported, not judged)",
			r.Overlaps.Count, r.Overlaps.Longest, r.Overlaps.Total)},
		[2]string{"early grants", earlyWords(r.EarlyGrants)},
	)
	for _, t := range r.Takeovers {
		out = append(out, [2]string{"takeover after pausing " + t.Worker, takeoverWords(t, r.TTL)})
	}
	out = append(out, [2]string{"longest without a grant", fmt.Sprintf("%.2f s from %s", r.LongestGap.Seconds, secs(r.LongestGap.From))})
	if w := r.Writes; w != nil {
		out = append(out,
			[2]string{"writes", fmt.Sprintf("%d sent: %d applied, %d rejected, %d suppressed, %d "+
				"unknown; %d valid writes rejected",
				w.Sent, w.Applied, w.Rejected, w.Suppressed, w.Unknown, w.ValidRejected)},
			[2]string{"deposed writes", fmt.Sprintf("%d sent after a higher token went to another worker: %d "+
				"applied (%d before the newer holder's first write), %d rejected",
				w.Deposed.Sent, w.Deposed.Applied, w.Deposed.AppliedFirst, w.Deposed.Rejected)})
	}
	return out
}

func (r *Report) ruleRow(rule string) string {
	v := r.FirstViolation
	switch {
	case v == nil:
		return "held"
	case v.Rule == rule:
		return fmt.Sprintf("BROKEN (%d grants broke a rule): token %d to %s at %s after token %d to %s at %s",
			r.Violations, v.Later.Token, v.Later.Worker, secs(v.Later.Answered), v.Earlier.Token, v.Earlier.Worker, secs(v.Earlier.Answered))
	}
	return "held up to the first violation"
}

func afterWords(a After) string {
	switch {
	case a.first == nil:
		return "no grant asked after it"
	case a.HighestBefore == nil:
		return fmt.Sprintf("held: first token %d, none before", *a.FirstToken)
	case *a.Held:
		return fmt.Sprintf("held: first token %d > highest before %d", *a.FirstToken, *a.HighestBefore)
	}
	return fmt.Sprintf("BROKEN: first token %d, highest before %d", *a.FirstToken, *a.HighestBefore)
}

func earlyWords(es []Early) string {
	if len(es) == 0 {
		return "none"
	}
	longest := es[0]
	for _, e := range es {
		if e.Early > longest.Early {
			longest = e
		}
	}
	return fmt.Sprintf("%d, the earliest %.2f s before the previous "+
		"lease could end (%s at %s)", len(es), longest.Early, longest.Worker, secs(longest.At))
}

func takeoverWords(t Takeover, ttl float64) string {
	if t.Seconds == nil {
		return fmt.Sprintf("paused at %s; no grant to another worker before the end", secs(t.Paused))
	}
	return fmt.Sprintf("%.2f s from its last renewal at %s to a grant at %s (TTL %g s, slack %.2f s)",
		*t.Seconds, secs(*t.LastRenewal), secs(*t.NextGrant), ttl, *t.Seconds-ttl)
}

func spans(ss []Span) string {
	var parts []string
	for _, s := range ss {
		parts = append(parts, span(s.From, s.To))
	}
	return strings.Join(parts, ", ")
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// WriteText prints the report for a terminal.
func WriteText(w io.Writer, r *Report) error {
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, row := range r.rows() {
		fmt.Fprintf(tw, "%s\t%s\n", row[0], row[1])
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\n%s\n", r.Line())
	return err
}

// WriteMarkdown writes the report for a postmortem.
func WriteMarkdown(w io.Writer, r *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## Issuer probe: %s\n\n", md(r.Issuer))
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "- note: %s\n", md(n))
	}
	if len(r.Notes) > 0 {
		b.WriteString("\n")
	}
	b.WriteString("| | |\n|---|---|\n")
	for _, row := range r.rows() {
		fmt.Fprintf(&b, "| %s | %s |\n", md(row[0]), md(row[1]))
	}
	fmt.Fprintf(&b, "\n**%s**\n", md(r.Line()))
	_, err := io.WriteString(w, b.String())
	return err
}

func md(s string) string {
	return strings.NewReplacer("|", `\|`, "*", `\*`, "_", `\_`, "`", "\\`", "<", "&lt;", ">", "&gt;", "\n", " ").Replace(s)
}

// Figures are the report's rows as lines, "label: value", for a saved
// run's page.
func (r *Report) Figures() []string {
	var out []string
	for _, row := range r.rows() {
		out = append(out, row[0]+": "+row[1])
	}
	return out
}
