package probe

import "fmt"

// CheckVersions checks a cas history: rmw writes, each expecting the
// version its worker read. A correct receiver applies a write only at the
// version it expects and moves the resource one version on, so it cannot:
//   - apply two writes that expect the same version (the second overwrote
//     the first, which its writer never saw: a lost update);
//   - apply a write that expects a version at or below that of a write it
//     had acknowledged applied before this one was sent (the resource had
//     moved past it: a lost update too);
//   - reject a write that expects version v when no write that expects v
//     or more (and so could have moved the resource past v) had been sent
//     before its answer;
//   - end at a version not above the highest expected version applied,
//     or holding another value than that write's.
//
// A version need not count writes: it rises strictly by any step with
// each write applied (a sequence, a global revision), so "one past" is
// never assumed.
//
// It returns the first violation in the order the answers came, or nil.
func CheckVersions(recs []Record, final *Holding) *Violation {
	var best *Record                  // the acknowledged write with the highest expected version so far
	var bestAt int32                  // 1 + its index
	var sent *Record                  // the highest expected version sent so far that was (or may have been) applied
	floor := make([]int32, len(recs)) // 1 + the index of best when each was sent; 0: none
	applied := map[int64]*Record{}
	for _, ev := range order(recs) {
		r := &recs[ev>>1]
		if r.Expect == nil {
			continue
		}
		if ev&1 == 0 {
			floor[ev>>1] = bestAt
			if mayRaise(r) && (sent == nil || *r.Expect > *sent.Expect) {
				sent = r
			}
			continue
		}
		if r.Outcome == "rejected" && (sent == nil || *sent.Expect < *r.Expect) {
			return casRejected(sent, r)
		}
		if r.Outcome != "applied" {
			continue
		}
		if first := applied[*r.Expect]; first != nil {
			return lostUpdate(first, r, "both")
		}
		if at := floor[ev>>1]; at > 0 && *recs[at-1].Expect >= *r.Expect {
			return lostUpdate(&recs[at-1], r, "before")
		}
		applied[*r.Expect] = r
		if best == nil || *r.Expect > *best.Expect {
			best, bestAt = r, int32(ev>>1)+1
		}
	}
	if final == nil || best == nil {
		return nil
	}
	return finalVersion(recs, best, *final)
}

// finalVersion checks that the resource ends above the highest expected
// version applied, with that write's value. A request
// that failed may have been applied: a higher expected version is then
// allowed too.
func finalVersion(recs []Record, top *Record, final Holding) *Violation {
	if final.Version != nil && *final.Version > *top.Expect && final.Value != nil && *final.Value == top.Value {
		return nil
	}
	for i := range recs {
		r := &recs[i]
		if r.Outcome == "error" && r.Expect != nil && *r.Expect >= *top.Expect {
			return nil
		}
	}
	return &Violation{Kind: "final-value", After: top, Words: fmt.Sprintf(
		"after every request was answered the resource is at version %s holding %s, but the highest version a "+
			"write expected and was acknowledged applied at is %d: request #%d (%q, answered applied at %s) "+
			"should have left it above version %d holding its value",
		versionWords(final.Version), holdingWords(final.Value, final.Token), *top.Expect, top.Seq, top.Value, ms(top.AnsweredAt), *top.Expect)}
}

// lostUpdate says that after was applied although before had moved the
// resource past the version after expected: both expected it, or before
// was acknowledged before after was sent.
func lostUpdate(before, after *Record, how string) *Violation {
	why := fmt.Sprintf("request #%d (worker %d, %q) expected the same version and was answered applied at %s: "+
		"both were applied, the second over the first, which its writer never read",
		before.Seq, before.Worker, before.Value, ms(before.AnsweredAt))
	if how == "before" {
		why = fmt.Sprintf("request #%d (worker %d, %q, expecting version %d) had been answered applied at %s, "+
			"before #%d was sent: the resource was past version %d already",
			before.Seq, before.Worker, before.Value, *before.Expect, ms(before.AnsweredAt), after.Seq, *after.Expect)
	}
	return &Violation{Kind: "lost-update", Before: before, After: after, Words: fmt.Sprintf(
		"request #%d (worker %d, %q, expecting version %d) was sent at %s and answered applied at %s, but %s",
		after.Seq, after.Worker, after.Value, *after.Expect, ms(after.SentAt), ms(after.AnsweredAt), why)}
}

func casRejected(top, r *Record) *Violation {
	words := "no write that could move the resource had been sent before its answer"
	if top != nil {
		words = fmt.Sprintf("the highest version a write sent by then expected was %d (request #%d, sent at "+
			"%s), so the resource could not have moved past %d",
			*top.Expect, top.Seq, ms(top.SentAt), *r.Expect)
	}
	return &Violation{Kind: "valid-rejected", Before: top, After: r, Words: fmt.Sprintf(
		"request #%d (worker %d, %q, expecting version %d) was sent at %s and answered rejected at %s, but "+
			"%s: a cas receiver rejects only a write whose resource moved on",
		r.Seq, r.Worker, r.Value, *r.Expect, ms(r.SentAt), ms(r.AnsweredAt), words)}
}
