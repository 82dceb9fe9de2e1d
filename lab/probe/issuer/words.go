package issuer

import (
	"fmt"
	"strings"
)

// cause names the latest fault or outage that began between the two
// grants of a violation (or began before and was still on when the
// earlier grant was asked: a grant answered by a server being killed),
// and says the violation in words.
func (r *Report) cause(v *Violation) (cause, words string) {
	from, to := v.Earlier.Sent, v.Later.Answered
	why := "with no fault or outage seen in between"
	latest := -1.0
	for _, f := range r.Faults {
		if !f.Missed && f.To >= from && f.From <= to && f.From > latest {
			latest, cause, why = f.From, fmt.Sprintf("%s %s", f.Kind, span(f.From, f.To)), "after "+FaultWords(f)
		}
	}
	for _, o := range r.Outages {
		if r.duringFault(o.From) {
			continue // the probe's fault caused it: name the fault
		}
		if o.To >= from && o.From <= to && o.From > latest {
			latest, cause = o.From, "outage "+span(o.From, o.To)
			why = fmt.Sprintf("after the issuer stopped answering at %s (until %s; not the probe's doing)", secs(o.From), secs(o.To))
		}
	}
	e, l := v.Earlier, v.Later
	if v.Rule == "duplicate" {
		return cause, fmt.Sprintf("token %d was granted twice: to %s at %s and to %s at %s (asked at %s), %s",
			l.Token, e.Worker, secs(e.Answered), l.Worker, secs(l.Answered), secs(l.Sent), why)
	}
	return cause, fmt.Sprintf("token %d was granted to %s at %s (asked at %s) after token %d was granted to "+
		"%s at %s: the sequence went backwards %s",
		l.Token, l.Worker, secs(l.Answered), secs(l.Sent), e.Token, e.Worker, secs(e.Answered), why)
}

// FaultWords says what the probe did: "the probe killed the leader etcd-2
// at 8.10 s (until 9.02 s)".
func FaultWords(f Fault) string {
	verb := map[string]string{
		"pause-holder":     "paused the holder %s",
		"pause-leader":     "paused the leader %s",
		"pause-member":     "paused the member %s",
		"kill-leader":      "killed the leader %s",
		"kill-member":      "killed the member %s",
		"kill-all":         "killed every member (%s)",
		"partition-leader": "cut off the leader %s",
		"partition-member": "cut off the member %s",
		"failover":         "killed the primary %s and promoted a replica",
	}[f.Kind]
	if verb == "" {
		verb = f.Kind + " %s"
	}
	return fmt.Sprintf("the probe "+verb+" at %s (until %s)", f.Target, secs(f.From), secs(f.To))
}

func span(from, to float64) string { return fmt.Sprintf("%.2f–%.2f s", from, to) }

func secs(t float64) string { return fmt.Sprintf("%.2f s", t) }

// Line is the verdict's last line: "HELD: …" or "BROKEN: …".
func (r *Report) Line() string {
	if r.FirstViolation != nil {
		return "BROKEN: " + r.FirstViolation.Words
	}
	faults := 0
	for _, f := range r.Faults {
		if !f.Missed {
			faults++
		}
	}
	return fmt.Sprintf("HELD: %d grants, every token greater than every token granted before it was asked, "+
		"none granted twice, across %s and %s",
		r.Counts.Grants, plural(faults, "fault"), plural(len(r.Outages), "outage"))
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// FaultsLine is the table's row of faults into the issuer.
func (r *Report) FaultsLine() string {
	if !r.StartedByProbe {
		return "faults injected into the issuer: none (not started by the probe)"
	}
	if len(r.Nemeses) == 0 {
		return "faults injected into the issuer: none"
	}
	return "faults injected into the issuer: " + strings.Join(r.Nemeses, ", ")
}

// duringFault reports whether t falls within a fault of the probe's.
func (r *Report) duringFault(t float64) bool {
	for _, f := range r.Faults {
		if !f.Missed && f.From <= t && t <= f.To {
			return true
		}
	}
	return false
}
