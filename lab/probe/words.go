package probe

import (
	"fmt"
	"strconv"
)

// explain says in words how a step's observation differs from the model's.
func (pl *player) explain(row Step) string {
	want, got := row.Expected, row.Observed
	head := fmt.Sprintf("step %d: ", row.Index)
	value, tok := "", ""
	if row.Request == "POST /writes" {
		value, tok = strconv.Quote(deref(row.Event.Value)), tokenWords(row.Event.Token)
		if row.Event.Kind == "deliver" {
			e := pl.sends[row.Event.Request]
			value, tok = strconv.Quote(deref(e.Value)), tokenWords(e.Token)
		}
		if row.ExpectVersion != nil {
			tok += " expecting version " + strconv.FormatInt(*row.ExpectVersion, 10)
		}
	}
	switch {
	case want.Outcome != got.Outcome && row.Request == "POST /writes":
		return head + pl.outcomeWords(row, value, tok)
	case want.Outcome != got.Outcome:
		return fmt.Sprintf("%sthe receiver answered %s with %s, the model expects %s",
			head, requestName(pl.p.Client, row.Request), got.Outcome, want.Outcome)
	case want.Version != nil && !eq(want.Version, got.Version) && pl.namesVersions() && got.Outcome == "applied" &&
		pl.before != nil && got.Version != nil && *got.Version <= *pl.before:
		return fmt.Sprintf("%sthe receiver answered applied, but the version stayed at %s (a version must rise with each write applied)",
			head, pl.versionAs(pl.readRes, pl.before))
	case want.Version != nil && !eq(want.Version, got.Version) && pl.namesVersions() && got.Outcome != "applied" &&
		pl.before != nil && got.Version != nil:
		return fmt.Sprintf("%safter it the resource is at version %s; it was at %s (a refused write or a restart leaves the version as it was)",
			head, pl.versionAs(pl.readRes, got.Version), pl.versionAs(pl.readRes, pl.before))
	case want.Version != nil && !eq(want.Version, got.Version):
		return fmt.Sprintf("%safter it the resource is at version %s, the model says %d (the writes applied so far)",
			head, versionWords(got.Version), *want.Version)
	}
	return fmt.Sprintf("%safter it the resource holds %s, the model says %s",
		head, holdingWords(got.Value, got.Token), holdingWords(want.Value, want.Token))
}

func (pl *player) outcomeWords(row Step, value, tok string) string {
	want, got := row.Expected.Outcome, row.Observed.Outcome
	ack := ""
	if pl.ack != nil && !pl.p.Policy.ChecksVersion() { // cas ignores tokens
		ack = fmt.Sprintf(" after it had acknowledged token %d (%s)", *pl.ack, pl.ackAt)
	}
	switch {
	case got == "applied" && want == "rejected":
		if ack != "" && pl.ackAt == fmt.Sprintf("at step %d", row.Index) {
			ack = "" // this very write raised it
		}
		if still := pl.stillHolds(row, value); still != "" {
			return fmt.Sprintf("the receiver answered applied to %s%s, but the row still holds %s: its answer "+
				"claims a write that did not happen; under %s it must reject it (%s)",
				value, tok, still, pl.p.Policy, row.Reason)
		}
		return fmt.Sprintf("the receiver applied %s%s%s; under %s it must reject it (%s)", value, tok, ack, pl.p.Policy, row.Reason)
	case got == "applied" && want == "suppressed":
		op := pl.opOf(row)
		return fmt.Sprintf("the receiver applied %s%s again although op %s was already applied at step %d; "+
			"under %s it must suppress it", value, tok, op, pl.opStep[op], pl.p.Policy)
	case got == "rejected":
		return fmt.Sprintf("the receiver rejected %s%s (%s), the "+
			"model expects %s under %s (%s)", value, tok, orNone(row.Observed.Reason), want, pl.p.Policy, row.Reason)
	}
	return fmt.Sprintf("the receiver answered %s to %s%s, the model expects %s under %s (%s)", got, value, tok, want, pl.p.Policy, row.Reason)
}

// stillHolds is what the resource holds after a write answered applied,
// in words, when that is not what the write would leave (its value with
// its token): "" when it is.
func (pl *player) stillHolds(row Step, value string) string {
	got := row.Observed
	e := row.Event
	if e.Kind == "deliver" {
		e = pl.sends[row.Event.Request]
	}
	if got.Value == nil && got.Token == nil {
		return ""
	}
	if got.Value != nil && strconv.Quote(*got.Value) == value && eq(got.Token, e.Token) {
		return ""
	}
	return holdingWords(got.Value, got.Token)
}

// versionNamer is a receiver that numbers versions for the probe (a SQL
// receiver whose versions rise by any step) and tells the one it gave.
type versionNamer interface {
	VersionName(resource string, v int64) string
}

// namesVersions: the receiver's versions need not count writes (a SQL
// receiver's rise by any step), so a divergence says what they did
// rather than the model's count.
func (pl *player) namesVersions() bool {
	_, ok := pl.p.Client.(versionNamer)
	return ok
}

// versionAs is a version in the receiver's own words where it has them.
func (pl *player) versionAs(resource string, v *int64) string {
	if n, ok := pl.p.Client.(versionNamer); ok && v != nil {
		return n.VersionName(resource, *v)
	}
	return versionWords(v)
}

func (pl *player) opOf(row Step) string {
	if row.Event.Kind == "deliver" {
		return pl.sends[row.Event.Request].Op
	}
	return row.Event.Op
}

func versionWords(v *int64) string {
	if v == nil {
		return "unknown (GET /resources gave no version; a receiver that claims cas must)"
	}
	return strconv.FormatInt(*v, 10)
}

func tokenWords(t *int64) string {
	if t == nil {
		return " without a token"
	}
	return " with token " + strconv.FormatInt(*t, 10)
}

func holdingWords(v *string, t *int64) string {
	if v == nil && t == nil {
		return "nothing"
	}
	s := "null"
	if v != nil {
		s = strconv.Quote(*v)
	}
	return s + tokenWords(t)
}

func orNone(reason string) string {
	if reason == "" {
		return "no reason given"
	}
	return "its reason: " + reason
}

// requestName is a request as the receiver ran it: a SQL receiver (one
// that keeps its statement file) names its queries, not POST /grants.
func requestName(c Receiver, request string) string {
	if f, ok := c.(interface{ SQLFile() *SQLFile }); ok {
		return f.SQLFile().RequestName(request)
	}
	return request
}

// unsupported says what the receiver lacks for a request it cannot
// answer: an HTTP receiver answers it with 404 or 405; a statement file
// has no block for its role.
func unsupported(c Receiver, request string) string {
	if _, ok := c.(interface{ SQLFile() *SQLFile }); ok && requestRoles[request] != "" {
		return fmt.Sprintf("a %s block, which the statement file does not have", requestRoles[request])
	}
	return request + ", which it answers with 404 or 405"
}
