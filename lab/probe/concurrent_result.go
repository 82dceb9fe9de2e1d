package probe

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// result reads the final value, checks the history and sums it up.
func (r *run) result(ctx context.Context, recs []Record, elapsed time.Duration) (*Result, error) {
	title := fmt.Sprintf("%d workers at one lease for %s", r.opt.Workers, r.opt.Duration)
	res := r.p.result(title, "concurrent", []string{})
	cr := &ConcurrentResult{Workers: r.opt.Workers, Seconds: elapsed.Seconds(), Requests: len(recs),
		StoppedEarly: r.stop.Load() && r.firstErr == nil}
	for _, rec := range recs {
		switch rec.Outcome {
		case "applied":
			cr.Applied++
		case "rejected":
			cr.Rejected++
		case "suppressed":
			cr.Suppressed++
		case "error":
			cr.Errors++
		case GaveUp:
			cr.GaveUp++
		}
	}
	cr.PerSecond = float64(len(recs)) / elapsed.Seconds()
	res.Concurrent = cr
	var ue *UnreachableError
	switch {
	case errors.Is(r.firstErr, ErrNotSupported):
		res.Verdict = NotTestable
		res.Divergence = "not testable against this receiver: " + string(r.p.Policy) + " needs " + unsupported(r.p.Client, "POST /grants")
		return res, nil
	case errors.As(r.firstErr, &ue) && cr.Requests == cr.Errors:
		return nil, r.firstErr
	case stops(r.firstErr) && !errors.As(r.firstErr, &ue):
		return nil, r.firstErr // a statement the database refuses: exit 2
	case r.firstErr != nil:
		cr.FirstError = r.firstErr.Error()
	}
	final, err := r.p.Client.Resource(ctx, r.opt.Resource)
	switch {
	case errors.As(err, &ue):
		return nil, err
	case err != nil:
		cr.FirstError = err.Error()
	default:
		cr.Final = &final
	}
	cr.Violation = r.checker.Check(recs, cr.Final)
	if cr.Violation == nil {
		cr.Violation = r.readBack.Load() // cas: a read that went back
	}
	switch {
	case cr.Violation != nil:
		res.Verdict, res.Divergence = Disagree, cr.Violation.Words
	case cr.FirstError != "":
		res.Verdict = Disagree
		res.Divergence = fmt.Sprintf("%d of %d requests failed; the first: %s", cr.Errors, cr.Requests, cr.FirstError)
	}
	return res, nil
}
