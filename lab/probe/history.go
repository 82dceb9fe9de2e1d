package probe

import (
	"fmt"
	"time"
)

// Record is one request of the concurrent mode with its answer. Sent and
// Answered are ticks of one counter shared by every worker, taken just
// before the request leaves and just after its answer is read: when
// a.Answered < b.Sent, the receiver had answered a before b was sent.
type Record struct {
	Seq        int           `json:"seq"` // the request's number, from 1
	Worker     int           `json:"worker"`
	Grant      bool          `json:"grant,omitempty"` // a POST /grants, not a write
	Token      int64         `json:"token"`
	Op         string        `json:"op,omitempty"`
	Expect     *int64        `json:"expect_version,omitempty"` // cas: the version the rmw write expects
	Value      string        `json:"value,omitempty"`
	Outcome    string        `json:"outcome"` // applied, rejected, suppressed, ok (grant), error
	Sent       int64         `json:"-"`
	Answered   int64         `json:"-"`
	SentAt     time.Duration `json:"sent_at"`
	AnsweredAt time.Duration `json:"answered_at"`
}

// Violation is the first thing a correct fencing receiver cannot do.
type Violation struct {
	// Kind is "stale-acknowledged", "valid-rejected", "duplicate-applied",
	// "lost-update" (cas), "version-went-back" (cas: a read lower than one
	// answered before it was sent) or "final-value".
	Kind string `json:"kind"`
	// Words say it in a sentence, with both requests and their times.
	Words  string  `json:"words"`
	Before *Record `json:"before,omitempty"` // the earlier request of the pair
	After  *Record `json:"after,omitempty"`  // the request the receiver should not have applied
}

// Checker checks a concurrent history in time linear in its length.
type Checker struct {
	Strict     bool // fenced-strict: an equal token must be rejected too
	Idempotent bool // fenced-idempotent: an op must be applied at most once
	// Versions (cas): check the version conditions of rmw writes for lost
	// updates instead of the tokens (see CheckVersions).
	Versions bool
}

// Check returns the first violation of the history, in the order the
// answers came, or nil. final, when not nil, is what the resource held
// after every request was answered.
func (c Checker) Check(recs []Record, final *Holding) *Violation {
	if c.Versions {
		return CheckVersions(recs, final)
	}
	events := order(recs)
	var best *Record                  // the acknowledged request with the highest token so far
	var bestAt int32                  // 1 + its index
	var sent *Record                  // the highest token sent so far that was (or may have been) applied
	floor := make([]int32, len(recs)) // 1 + the index of best when each was sent; 0: none
	firstOp := map[string]*Record{}
	for _, ev := range events {
		r := &recs[ev>>1]
		if ev&1 == 0 { // sent: what had been acknowledged before
			floor[ev>>1] = bestAt
			if mayRaise(r) && (sent == nil || r.Token > sent.Token) {
				sent = r
			}
			continue
		}
		if r.Outcome == "rejected" && (sent == nil || r.Token > sent.Token || !c.Strict && r.Token == sent.Token) {
			return validRejected(sent, r, c.Strict)
		}
		if r.Outcome == "applied" && !r.Grant {
			if at := floor[ev>>1]; at > 0 {
				if f := &recs[at-1]; r.Token < f.Token || c.Strict && r.Token == f.Token {
					return stale(f, r, c.Strict)
				}
			}
			if r.Op != "" && c.Idempotent {
				if first := firstOp[r.Op]; first != nil {
					return duplicate(first, r)
				}
				firstOp[r.Op] = r
			}
		}
		if (r.Outcome == "applied" || r.Grant && r.Outcome == "ok") && (best == nil || r.Token >= best.Token) {
			best, bestAt = r, int32(ev>>1)+1
		}
	}
	if final == nil {
		return nil
	}
	return finalValue(recs, *final)
}

// order lists the history's events by tick: 2i for record i's sending,
// 2i+1 for its answer. Ticks are distinct and below 2n+1 when every
// request took two, so a bucket per tick sorts them in linear time; the
// rest (gaps from requests that failed) are skipped.
func order(recs []Record) []int {
	maxTick := int64(0)
	for i := range recs {
		maxTick = max(maxTick, recs[i].Answered, recs[i].Sent)
	}
	slot := make([]int32, maxTick+1)
	for i := range slot {
		slot[i] = -1
	}
	for i := range recs {
		slot[recs[i].Sent] = int32(2 * i)
		slot[recs[i].Answered] = int32(2*i + 1)
	}
	out := make([]int, 0, 2*len(recs))
	for _, ev := range slot {
		if ev >= 0 {
			out = append(out, int(ev))
		}
	}
	return out
}

// finalValue checks that the resource ends with the value of the last
// applied write of the highest applied token. A request that failed may
// have been applied: its token is then allowed too.
func finalValue(recs []Record, final Holding) *Violation {
	var top *Record
	for i := range recs {
		r := &recs[i]
		if r.Grant || r.Outcome != "applied" {
			continue
		}
		if top == nil || r.Token > top.Token || r.Token == top.Token && r.Answered > top.Answered {
			top = r
		}
	}
	if top == nil {
		return nil
	}
	if final.Token != nil && *final.Token == top.Token && final.Value != nil && *final.Value == top.Value {
		return nil
	}
	for i := range recs {
		r := &recs[i]
		if r.Outcome == "error" && !r.Grant && final.Token != nil && *final.Token == r.Token && r.Token >= top.Token {
			return nil
		}
	}
	return &Violation{Kind: "final-value", After: top, Words: fmt.Sprintf(
		"after every request was answered the resource holds %s, but the highest token acknowledged is %d: "+
			"request #%d (%q, answered applied at %s) should be what it holds",
		holdingWords(final.Value, final.Token), top.Token, top.Seq, top.Value, ms(top.AnsweredAt))}
}

// mayRaise reports whether a request may have raised the token the
// receiver remembers: applied, registered, or failed without an answer.
func mayRaise(r *Record) bool {
	return r.Outcome == "applied" || r.Outcome == "error" || r.Grant && r.Outcome == "ok"
}

func validRejected(top, r *Record, strict bool) *Violation {
	words := "no request that could raise the token the receiver remembers had been sent before its answer"
	if top != nil {
		words = fmt.Sprintf("the highest token the receiver could remember by then was %d (request #%d, sent at %s)",
			top.Token, top.Seq, ms(top.SentAt))
	}
	rule := "only a token below one it remembers"
	if strict {
		rule = "only a token at or below one it remembers"
	}
	return &Violation{Kind: "valid-rejected", Before: top, After: r, Words: fmt.Sprintf(
		"request #%d (worker %d, token %d, %q) was sent at %s and answered rejected at %s, but %s: a fencing receiver rejects %s",
		r.Seq, r.Worker, r.Token, r.Value, ms(r.SentAt), ms(r.AnsweredAt), words, rule)}
}

func stale(before, after *Record, strict bool) *Violation {
	verb := "lower than"
	if strict && before.Token == after.Token {
		verb = "equal to"
	}
	what := "applied"
	if before.Grant {
		what = "registered"
	}
	return &Violation{Kind: "stale-acknowledged", Before: before, After: after, Words: fmt.Sprintf(
		"request #%d (worker %d, token %d, %q) was sent at %s and answered applied at %s, but its token is %s "+
			"token %d, which the receiver had %s in request #%d (worker %d) at %s, before #%d was sent",
		after.Seq, after.Worker, after.Token, after.Value, ms(after.SentAt), ms(after.AnsweredAt),
		verb, before.Token, what, before.Seq, before.Worker, ms(before.AnsweredAt), after.Seq)}
}

func duplicate(first, again *Record) *Violation {
	return &Violation{Kind: "duplicate-applied", Before: first, After: again, Words: fmt.Sprintf(
		"request #%d (worker %d, token %d) applied op %s at %s, which request #%d had already applied at %s",
		again.Seq, again.Worker, again.Token, again.Op, ms(again.AnsweredAt), first.Seq, ms(first.AnsweredAt))}
}

// ms shows a time since the start of the run in milliseconds.
func ms(d time.Duration) string { return fmt.Sprintf("%.3f ms", float64(d.Microseconds())/1000) }
