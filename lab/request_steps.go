package lab

// RequestSteps is where one request of a trace was sent and where it was
// decided, as positions in Trace.Steps (0-based, not step numbers).
type RequestSteps struct {
	Send    int // its send or write step; -1 when the trace has none
	Decided int // the deliver that decided it; -1 when none did
}

// Requests pairs each request of t with its send and, under policy p, the
// deliver that decided it: the first deliver of the request that p neither
// skipped nor dropped. A skipped or dropped deliver leaves the request
// undecided, so a later deliver of it (in a trace stored or edited by
// hand) is the one that counts. A write has no deliver (its own step
// decides it), so its Decided stays -1, and a commit of it finds nothing
// checked. The result is keyed by request id; when two sends share an id,
// the later one counts.
// Pictures of a run read it rather than pairing sends and delivers
// themselves, so that the rule stays with the replay.
func Requests(t *Trace, p Policy) map[string]RequestSteps {
	out := map[string]RequestSteps{}
	get := func(id string) RequestSteps {
		if r, ok := out[id]; ok {
			return r
		}
		return RequestSteps{Send: -1, Decided: -1}
	}
	for i, st := range t.Steps {
		e := st.Event
		switch row := e.Kind.rule(); {
		case row.sends:
			r := get(e.ID)
			r.Send = i
			out[e.ID] = r
		case row.delivers:
			r := get(e.Request)
			if d := st.Outcomes.Of(p).Decision; r.Decided < 0 && d != Skipped && d != Dropped {
				r.Decided = i
			}
			out[e.Request] = r
		}
	}
	return out
}
