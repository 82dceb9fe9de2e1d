package issuer_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"fencelab/lab"
	"fencelab/lab/probe/issuer"
)

func grant(w string, tok int64, sent, answered float64) issuer.Op {
	return issuer.Op{Worker: w, Op: issuer.OpAcquire, Sent: sent, Answered: answered, Result: issuer.Granted, Token: &tok, Owner: w + "-x"}
}

func release(w string, sent, answered float64) issuer.Op {
	return issuer.Op{Worker: w, Op: issuer.OpRelease, Sent: sent, Answered: answered, Result: issuer.Released}
}

func fault(kind, target string, from, to float64) issuer.Op {
	return issuer.Op{Worker: issuer.Nemesis, Op: kind, Target: target, Sent: from, Answered: to}
}

func unknown(w, op string, sent, answered float64) issuer.Op {
	return issuer.Op{Worker: w, Op: op, Sent: sent, Answered: answered, Result: issuer.Unknown, Error: "connection refused"}
}

var run = issuer.Run{Issuer: "redis://127.0.0.1:1/fencelab", Kind: "redis", Lock: "fencelab", Workers: 2, TTLAsked: 2, TTL: 2, Duration: 30}

func TestCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		ops     []issuer.Op
		verdict string
		rule    string
		words   []string
		viol    int
	}{
		{"one holder after another", []issuer.Op{grant("w1", 1, 0, 0.1), release("w1", 0.5, 0.6), grant("w2", 2, 0.6, 0.7)},
			issuer.Held, "", []string{"HELD: 2 grants"}, 0},
		{"gaps mean nothing", []issuer.Op{grant("w1", 10, 0, 0.1), grant("w2", 400, 0.6, 0.7)}, issuer.Held, "", nil, 0},
		{"grants in flight together may come in any order", []issuer.Op{grant("w1", 5, 0, 1), grant("w2", 4, 0.5, 0.9)},
			issuer.Held, "", nil, 0},
		{"backwards after a kill", []issuer.Op{grant("w1", 500, 0, 0.1), release("w1", 0.2, 0.3), fault("kill-all", "redis-1", 1, 1.5), grant("w2", 1, 2, 2.05)},
			issuer.Broken, "backwards", []string{"BROKEN: token 1 was granted to w2 at 2.05 s (asked at 2.00 s) after token 500 was granted to w1 at 0.10 s: the sequence went backwards after the probe killed every member (redis-1) at 1.00 s (until 1.50 s)"}, 1},
		{"a grant answered by a server as it was killed", []issuer.Op{fault("kill-all", "postgres-1", 3, 4), grant("w1", 216, 3.001, 3.002), grant("w2", 210, 4.5, 4.6)},
			issuer.Broken, "backwards", []string{"after token 216 was granted to w1 at 3.00 s: the sequence went backwards after the probe killed every member (postgres-1) at 3.00 s"}, 1},
		{"equal token after is backwards, reported under rule 1", []issuer.Op{grant("w1", 7, 0, 0.1), grant("w2", 7, 0.2, 0.3)},
			issuer.Broken, "backwards", []string{"token 7 was granted to w2", "with no fault or outage seen in between"}, 1},
		{"granted twice at once", []issuer.Op{grant("w1", 7, 0, 1), grant("w2", 7, 0.5, 0.9)},
			issuer.Broken, "duplicate", []string{"token 7 was granted twice: to w2 at 0.90 s and to w1 at 1.00 s"}, 1},
		{"an outage not of the probe's doing", []issuer.Op{grant("w1", 601, 0, 0.1), unknown("w1", issuer.OpRenew, 8.1, 8.2),
			unknown("w2", issuer.OpAcquire, 8.3, 8.4), {Worker: "w2", Op: issuer.OpAcquire, Sent: 9, Answered: 9.02, Result: issuer.Refused}, grant("w2", 548, 9.5, 9.6)},
			issuer.Broken, "backwards", []string{"after the issuer stopped answering at 8.10 s (until 9.02 s; not the probe's doing)"}, 1},
		{"cut off at the end is no outage", []issuer.Op{grant("w1", 1, 0, 0.1), {Worker: "w2", Op: issuer.OpAcquire, Sent: 1, Answered: 5, Result: issuer.Unknown, Error: issuer.CutOff}},
			issuer.Held, "", []string{"HELD: 1 grants", "0 outages"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := issuer.Check(run, tt.ops)
			if err != nil {
				t.Fatal(err)
			}
			var text bytes.Buffer
			issuer.WriteText(&text, r)
			if r.Verdict != tt.verdict || r.Violations != tt.viol {
				t.Fatalf("verdict %s with %d violations, want %s with %d\n%s", r.Verdict, r.Violations, tt.verdict, tt.viol, text.String())
			}
			if (r.FirstViolation == nil) != (tt.rule == "") || r.FirstViolation != nil && r.FirstViolation.Rule != tt.rule {
				t.Fatalf("first violation %+v, want rule %q", r.FirstViolation, tt.rule)
			}
			for _, w := range tt.words {
				if !strings.Contains(text.String(), w) {
					t.Errorf("the report lacks %q:\n%s", w, text.String())
				}
			}
		})
	}
}

// TestAfterFaults: rule 3 pairs the first grant asked after a fault with
// the highest token answered before it, one row a fault.
func TestAfterFaults(t *testing.T) {
	t.Parallel()
	ops := []issuer.Op{grant("w1", 5, 0, 0.1), release("w1", 0.2, 0.3), fault("kill-leader", "etcd-2", 1, 2),
		grant("w2", 9, 1.5, 2.5), grant("w1", 12, 2.1, 3), fault("pause-holder", "w1", 4, 8), grant("w2", 20, 5, 6.5)}
	r, err := issuer.Check(run, ops)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.AfterFaults) != 2 {
		t.Fatalf("%d rows after faults, want 2: %+v", len(r.AfterFaults), r.AfterFaults)
	}
	a := r.AfterFaults[0]
	// w2's grant was asked during the fault: the first asked after it is w1's 12.
	if *a.FirstToken != 12 || *a.HighestBefore != 5 || !*a.Held {
		t.Errorf("after kill-leader: first %d, highest before %d, held %v; want 12, 5, true", *a.FirstToken, *a.HighestBefore, *a.Held)
	}
	if b := r.AfterFaults[1]; b.FirstToken != nil || b.Held != nil {
		t.Errorf("after the pause nothing was asked, got first %v held %v", b.FirstToken, b.Held)
	}
	if len(r.Takeovers) != 1 || r.Takeovers[0].Seconds == nil || *r.Takeovers[0].Seconds != 4.4 {
		t.Errorf("takeovers %+v, want one of 4.4 s (last renewal 2.1, next grant 6.5)", r.Takeovers)
	}
	// w1's grant at 3 s came before w2's lease, renewed when asked at
	// 1.5 s, could end at 3.5 s.
	if len(r.EarlyGrants) != 1 || r.EarlyGrants[0].Worker != "w1" || r.EarlyGrants[0].Early != 0.5 {
		t.Errorf("early grants %+v, want w1's at 3 s, 0.5 s early", r.EarlyGrants)
	}
}

func TestNothingToJudge(t *testing.T) {
	t.Parallel()
	_, err := issuer.Check(run, []issuer.Op{unknown("w1", issuer.OpAcquire, 0, 5)})
	if !errors.Is(err, issuer.ErrNothingToJudge) {
		t.Fatalf("got %v, want nothing to judge", err)
	}
}

// TestJSON: the report's JSON has the contract's fields and tokens as
// integers.
func TestJSON(t *testing.T) {
	t.Parallel()
	r, err := issuer.Check(run, []issuer.Op{grant("w1", 500, 0, 0.1), fault("kill-all", "redis-1", 1, 1.5), grant("w2", 1, 2, 2.05)})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(r)
	var m map[string]any
	json.Unmarshal(b, &m)
	for _, k := range []string{"issuer", "kind", "lock", "started_by_probe", "start_unix", "workers", "ttl_asked_s", "ttl_s", "duration_s",
		"nemeses", "verdict", "counts", "faults", "outages", "after_faults", "overlaps", "early_grants", "takeovers",
		"longest_without_grant", "writes", "first_violation", "violations"} {
		if _, ok := m[k]; !ok {
			t.Errorf("the JSON lacks %q: %s", k, b)
		}
	}
	if !strings.Contains(string(b), `"later":{"worker":"w2","token":1,`) || !strings.Contains(string(b), `"cause":"kill-all 1.00–1.50 s"`) {
		t.Errorf("the first violation: %s", b)
	}
}

// TestScenario: a broken run opens in the lab, with its real tokens, an
// inferred expiry and a restart of the scope that forgets.
func TestScenario(t *testing.T) {
	t.Parallel()
	ops := []issuer.Op{grant("w1", 500, 0, 0.1), fault("pause-holder", "w1", 0.5, 3.5), grant("w2", 501, 1, 2.4),
		release("w2", 2.6, 2.7), fault("kill-all", "redis-1", 4, 4.5), grant("w1", 1, 5, 5.1)}
	r, err := issuer.Check(run, ops)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := r.Scenario()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(sc)
	parsed, err := lab.Parse(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("the scenario does not parse: %v\n%s", err, b)
	}
	var kinds []string
	for _, e := range parsed.Events {
		kinds = append(kinds, string(e.Kind))
	}
	want := "acquire pause expire acquire release resume restart acquire"
	if got := strings.Join(kinds, " "); got != want {
		t.Errorf("events %q, want %q", got, want)
	}
	if sc.Scopes["fencelab"].Remember != lab.Memory {
		t.Errorf("the scope should forget: %+v", sc.Scopes)
	}
	tr := lab.Replay(parsed)
	if tr == nil {
		t.Fatal("no trace")
	}
}

// TestScenarioWindow: past the model's events, the scenario is a window
// around the first violation, starting at a grant, and says so.
func TestScenarioWindow(t *testing.T) {
	t.Parallel()
	var ops []issuer.Op
	for i := range 600 {
		at := float64(i)
		tok := int64(i + 1)
		if i == 550 {
			tok = 3
		}
		ops = append(ops, grant(fmt.Sprintf("w%d", i%3+1), tok, at, at+0.1), release(fmt.Sprintf("w%d", i%3+1), at+0.5, at+0.6))
	}
	r, err := issuer.Check(run, ops)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := r.Scenario()
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Events) > lab.MaxEvents || sc.Events[0].Kind != "acquire" {
		t.Fatalf("%d events, the first %s; want at most %d, from a grant", len(sc.Events), sc.Events[0].Kind, lab.MaxEvents)
	}
	found := false
	for _, e := range sc.Events {
		found = found || e.Kind == "acquire" && *e.Token == 3 && e.Actor == "w2"
	}
	if !found || !strings.Contains(sc.Description, "a window of") {
		t.Errorf("the window lacks the violating grant (%v) or does not say it is a window: %s", found, sc.Description)
	}
	b, _ := json.Marshal(sc)
	if _, err := lab.Parse(bytes.NewReader(b)); err != nil {
		t.Errorf("the window does not parse: %v", err)
	}
}

// TestMarkdown: the report for a postmortem, a row per rule and the verdict.
func TestMarkdown(t *testing.T) {
	t.Parallel()
	r, err := issuer.Check(run, []issuer.Op{grant("w1", 500, 0, 0.1), fault("kill-all", "redis-1", 1, 1.5), grant("w2", 1, 2, 2.05)})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	issuer.WriteMarkdown(&b, r)
	for _, want := range []string{"## Issuer probe: redis://127.0.0.1:1/fencelab", "| 1. tokens increase | BROKEN", "| 3. after kill-all redis-1 1.00–1.50 s | BROKEN: first token 1, highest before 500 |", "**BROKEN: token 1 was granted to w2"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, b.String())
		}
	}
}

// TestCauseDuringFault: a grant asked after a kill began, answered before
// the server died and then lost, still has the kill as its cause.
func TestCauseDuringFault(t *testing.T) {
	t.Parallel()
	r, err := issuer.Check(run, []issuer.Op{grant("w1", 1, 0, 0.1), fault("kill-all", "postgres-1", 1, 1.5), grant("w2", 500, 1.01, 1.02), grant("w3", 2, 2, 2.05)})
	if err != nil {
		t.Fatal(err)
	}
	if v := r.FirstViolation; v == nil || v.Cause != "kill-all 1.00–1.50 s" || !strings.Contains(v.Words, "after the probe killed every member (postgres-1)") {
		t.Errorf("the first violation %+v; want the kill as its cause", v)
	}
}

func write(w string, tok int64, owner, result string, sent, answered float64) issuer.Op {
	return issuer.Op{Worker: w, Op: issuer.OpWrite, Token: &tok, Owner: owner, Value: owner + "-1", Result: result, Sent: sent, Answered: answered}
}

// TestWrites: a receiver's figures; a write sent after a higher token
// went to another worker is deposed, applied before the newer holder's
// first write or not.
func TestWrites(t *testing.T) {
	t.Parallel()
	ops := []issuer.Op{grant("w1", 5, 0, 0.1), write("w1", 5, "w1-x", "applied", 0.2, 0.3),
		grant("w2", 6, 2, 2.1), write("w1", 5, "w1-x", "applied", 2.2, 2.3), write("w2", 6, "w2-x", "applied", 2.25, 2.4),
		write("w1", 5, "w1-x", "rejected", 2.5, 2.6)}
	r, err := issuer.Check(run, ops)
	if err != nil {
		t.Fatal(err)
	}
	w := r.Writes
	if w == nil || w.Sent != 4 || w.Applied != 3 || w.Rejected != 1 || w.Deposed.Sent != 2 || w.Deposed.Applied != 1 || w.Deposed.AppliedFirst != 1 || w.Deposed.Rejected != 1 {
		t.Errorf("writes %+v", w)
	}
	if r.Verdict != issuer.Held {
		t.Fatalf("verdict %s before the receiver's rule", r.Verdict)
	}
	r.Receiver("request #2 … was applied")
	if r.Verdict != issuer.Broken || r.FirstViolation.Rule != "receiver" {
		t.Errorf("after a receiver's break: %s, %+v", r.Verdict, r.FirstViolation)
	}
}
