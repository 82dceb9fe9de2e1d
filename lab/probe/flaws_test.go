package probe_test

import (
	"strings"
	"testing"
	"time"

	"fencelab/lab"
	"fencelab/lab/probe"
	"fencelab/lab/receiver"
)

// TestForgetfulCaughtSequentially: the forgetful receiver accepts the old
// token after a restart, and the sequential probe names the step.
func TestForgetfulCaughtSequentially(t *testing.T) {
	t.Parallel()
	for _, store := range []string{"memory", "sqlite"} {
		t.Run(store, func(t *testing.T) {
			url := startReceiver(t, store, receiver.Options{Policy: lab.Fenced, Flaw: receiver.Forgetful})
			p := newProber(t, url, lab.Fenced)
			res, err := p.Sequential(t.Context(), builtin(t, "forgetful-receiver"))
			if err != nil {
				t.Fatal(err)
			}
			want := `step 8: the receiver applied "old-result" with token 41 after it had acknowledged token 42 (at step 5)`
			if res.Verdict != probe.Disagree || !strings.HasPrefix(res.Divergence, want) {
				t.Errorf("Sequential(forgetful-receiver) = %s %q, want disagree starting %q", res.Verdict, res.Divergence, want)
			}
			if st := res.Steps[7]; st.Agree || st.Observed.Outcome != "applied" || st.Expected.Outcome != "rejected" {
				t.Errorf("step 8 = %+v, want expected rejected, observed applied", st)
			}
			// The same receiver is what --remember memory describes.
			p.Remember = lab.Memory
			res, err = p.Sequential(t.Context(), builtin(t, "forgetful-receiver"))
			if err != nil || res.Verdict != probe.Agree {
				t.Errorf("Sequential(forgetful-receiver) with --remember memory = %v %v, want agree", res, err)
			}
		})
	}
}

// TestRacyCaughtConcurrently is the short version: the race window is
// widened to 1 ms, so writes land inside it at once.
func TestRacyCaughtConcurrently(t *testing.T) {
	slowTest(t)
	for _, store := range []string{"memory", "sqlite"} {
		t.Run(store, func(t *testing.T) {
			url := startReceiver(t, store, receiver.Options{Policy: lab.Fenced, Flaw: receiver.Racy, Window: time.Millisecond})
			p := newProber(t, url, lab.Fenced)
			res, err := p.Concurrent(t.Context(), probe.ConcurrentOptions{Workers: 8, Duration: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != probe.Disagree || res.Concurrent.Violation == nil {
				t.Fatalf("Concurrent against a racy receiver = %s after %d requests, want a violation", res.Verdict, res.Concurrent.Requests)
			}
			v := res.Concurrent.Violation
			if v.Kind == "stale-acknowledged" && !(v.Before.Answered < v.After.Sent && v.After.Token < v.Before.Token) {
				t.Errorf("the violating pair is not one: %+v then %+v", v.Before, v.After)
			}
		})
	}
}

// TestRacyCaughtWithin10s is the bar: against the racy SQLite
// receiver, with no artificial window, the concurrent mode finds a
// violation within 10 s in at least 19 of 20 runs.
func TestRacyCaughtWithin10s(t *testing.T) {
	if testing.Short() {
		t.Skip("20 runs of up to 10 s each")
	}
	caught := 0
	for i := range 20 {
		url := startReceiver(t, "sqlite", receiver.Options{Policy: lab.Fenced, Flaw: receiver.Racy})
		p := newProber(t, url, lab.Fenced)
		res, err := p.Concurrent(t.Context(), probe.ConcurrentOptions{Workers: 8, Duration: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict == probe.Disagree {
			caught++
		}
		t.Logf("run %d: %s after %.2f s, %d requests", i+1, res.Verdict, res.Concurrent.Seconds, res.Concurrent.Requests)
	}
	if caught < 19 {
		t.Errorf("caught the racy receiver in %d of 20 runs, want at least 19", caught)
	}
}

// TestCASForgetfulCaughtSequentially: a cas receiver that keeps the
// version in memory comes back from a restart at version 0, and the
// worker's next rmw write, expecting the version its own write produced,
// is refused. The sequential probe names the restart, where the version
// first differs.
func TestCASForgetfulCaughtSequentially(t *testing.T) {
	t.Parallel()
	s, err := lab.Parse(strings.NewReader(`{ "version": 1, "title": "A restart between two updates",
	  "events": [
	    { "actor": "A", "kind": "read" },
	    { "actor": "A", "kind": "write", "value": "1", "rmw": true },
	    { "kind": "restart", "resource": "result" },
	    { "actor": "A", "kind": "write", "value": "2", "rmw": true } ] }`))
	if err != nil {
		t.Fatal(err)
	}
	for _, store := range []string{"memory", "sqlite"} {
		t.Run(store, func(t *testing.T) {
			url := startReceiver(t, store, receiver.Options{Policy: lab.CAS, Flaw: receiver.Forgetful})
			res, err := newProber(t, url, lab.CAS).Sequential(t.Context(), s)
			if err != nil {
				t.Fatal(err)
			}
			want := "step 3: after it the resource is at version 0, the model says 1"
			if res.Verdict != probe.Disagree || !strings.HasPrefix(res.Divergence, want) {
				t.Errorf("Sequential(restart between updates) = %s %q, want disagree starting %q", res.Verdict, res.Divergence, want)
			}
			if st := res.Steps[3]; st.ExpectVersion == nil || *st.ExpectVersion != 1 || st.Observed.Outcome != "rejected" {
				t.Errorf("step 4 = %+v, want expect_version 1 (A's own write), observed rejected", st)
			}
		})
	}
}

// TestCASRacyCaughtConcurrently: a cas receiver that checks the version
// and writes apart lets two writers that read the same version both in,
// and the concurrent mode reports the lost update.
func TestCASRacyCaughtConcurrently(t *testing.T) {
	slowTest(t)
	for _, store := range []string{"memory", "sqlite"} {
		t.Run(store, func(t *testing.T) {
			url := startReceiver(t, store, receiver.Options{Policy: lab.CAS, Flaw: receiver.Racy, Window: time.Millisecond})
			res, err := newProber(t, url, lab.CAS).Concurrent(t.Context(), probe.ConcurrentOptions{Workers: 8, Duration: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			v := res.Concurrent.Violation
			if res.Verdict != probe.Disagree || v == nil || v.Kind != "lost-update" {
				t.Fatalf("Concurrent against a racy cas receiver = %s %q after %d requests, want a lost-update", res.Verdict, res.Divergence, res.Concurrent.Requests)
			}
			if *v.After.Expect > *v.Before.Expect || v.After.Outcome != "applied" || v.Before.Outcome != "applied" {
				t.Errorf("the violating pair is not one: %+v then %+v", v.Before, v.After)
			}
		})
	}
}

// TestCASOwnWritesInFlight: a worker's second rmw send, still in flight
// when its first is applied, expects the version the first produced: the
// model never counts a worker's own writes as making it stale. A read
// that names no resource reads both, and another worker's write makes
// the next one stale. The correct receivers agree in order and in every
// ordering.
func TestCASOwnWritesInFlight(t *testing.T) {
	t.Parallel()
	s, err := lab.Parse(strings.NewReader(`{ "version": 1, "title": "Two updates in flight",
	  "resources": { "a": {}, "b": {} },
	  "events": [
	    { "actor": "A", "kind": "read" },
	    { "actor": "A", "kind": "send", "value": "a1", "id": "s1", "resource": "a", "rmw": true },
	    { "actor": "A", "kind": "send", "value": "a2", "id": "s2", "resource": "a", "rmw": true },
	    { "kind": "deliver", "request": "s1" },
	    { "kind": "deliver", "request": "s2" },
	    { "actor": "B", "kind": "write", "value": "b1", "resource": "b" },
	    { "actor": "A", "kind": "write", "value": "a3", "resource": "b", "rmw": true } ] }`))
	if err != nil {
		t.Fatal(err)
	}
	for _, store := range []string{"memory", "sqlite"} {
		t.Run(store, func(t *testing.T) {
			p := newProber(t, startReceiver(t, store, receiver.Options{Policy: lab.CAS}), lab.CAS)
			res, err := p.Sequential(t.Context(), s)
			if err != nil || res.Verdict != probe.Agree {
				t.Fatalf("Sequential(two updates in flight) = %v, %v", res, err)
			}
			for _, want := range []struct {
				step    int
				expect  *int64
				outcome string
			}{{4, ptr(0), "applied"}, {5, ptr(1), "applied"}, {6, nil, "applied"}, {7, ptr(0), "rejected"}} {
				st := res.Steps[want.step-1]
				if !sameVersion(st.ExpectVersion, want.expect) || st.Observed.Outcome != want.outcome {
					t.Errorf("step %d: expect_version %v, observed %s; want %v, %s", want.step, show(st.ExpectVersion), st.Observed.Outcome, show(want.expect), want.outcome)
				}
			}
			opt := probe.OrderingsOptions{}
			if testing.Short() {
				opt = probe.OrderingsOptions{N: 12, Seed: 1}
			}
			res, err = p.Orderings(t.Context(), s, opt)
			if err != nil || res.Verdict != probe.Agree || res.Orderings.Tried == 0 {
				t.Errorf("Orderings(two updates in flight) = %v, %v", res, err)
			}
		})
	}
}

func ptr(n int64) *int64 { return &n }

func sameVersion(a, b *int64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func show(p *int64) any {
	if p == nil {
		return "none"
	}
	return *p
}
