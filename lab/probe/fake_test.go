package probe_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"fencelab/lab"
	"fencelab/lab/probe"
)

// fake is a receiver written from the contract alone, with switches that
// break it in the ways real receivers break.
type fake struct {
	stringTokens bool // compares tokens as strings: "9" > "10"
	ignoreOps    bool // claims fenced-idempotent but never suppresses
	noRestart    bool // leaves /restart out: 404
	fail500      bool // every write fails
	notJSON      bool // writes answer plain text
	cas          bool // claims cas: checks expect_version, ignores tokens
	blind        bool // with cas: counts versions but never checks the condition
	slow         time.Duration

	mu      sync.Mutex
	value   map[string]*string
	token   map[string]*int64
	rem     map[string]*int64
	version map[string]int64
	ops     map[string]bool
	served  int
}

func (f *fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.served++
	switch {
	case r.URL.Path == "/reset":
		f.value, f.token, f.rem, f.ops = map[string]*string{}, map[string]*int64{}, map[string]*int64{}, map[string]bool{}
		f.version = map[string]int64{}
	case r.URL.Path == "/restart" && f.noRestart:
		http.NotFound(w, r)
	case r.URL.Path == "/restart":
	case strings.HasPrefix(r.URL.Path, "/resources/"):
		name := strings.TrimPrefix(r.URL.Path, "/resources/")
		json.NewEncoder(w).Encode(map[string]any{"value": f.value[name], "token": f.token[name], "version": f.version[name]})
	case r.URL.Path == "/writes":
		f.write(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (f *fake) write(w http.ResponseWriter, r *http.Request) {
	time.Sleep(f.slow)
	var in struct {
		Resource string  `json:"resource"`
		Value    string  `json:"value"`
		Token    *int64  `json:"token"`
		Op       *string `json:"op"`
		Expect   *int64  `json:"expect_version"`
	}
	json.NewDecoder(r.Body).Decode(&in)
	switch {
	case f.fail500:
		http.Error(w, "database exploded", http.StatusInternalServerError)
		return
	case f.notJSON:
		w.Write([]byte("OK, applied"))
		return
	case in.Op != nil && !f.ignoreOps && f.ops[*in.Op]:
		w.Write([]byte(`{"outcome": "suppressed"}`))
		return
	}
	rem := f.rem[in.Resource]
	if f.cas && !f.blind && in.Expect != nil && *in.Expect != f.version[in.Resource] {
		w.WriteHeader(http.StatusConflict)
		w.Write([]byte(`{"outcome": "rejected", "reason": "stale"}`))
		return
	}
	if !f.cas && (in.Token == nil || rem != nil && f.less(*in.Token, *rem)) {
		w.WriteHeader(http.StatusConflict)
		w.Write([]byte(`{"outcome": "rejected", "reason": "stale"}`))
		return
	}
	v := in.Value
	f.value[in.Resource], f.token[in.Resource], f.rem[in.Resource] = &v, in.Token, in.Token
	f.version[in.Resource]++
	if in.Op != nil {
		f.ops[*in.Op] = true
	}
	w.Write([]byte(`{"outcome": "applied"}`))
}

func (f *fake) less(a, b int64) bool {
	if f.stringTokens {
		return strconv.FormatInt(a, 10) < strconv.FormatInt(b, 10)
	}
	return a < b
}

func startFake(t *testing.T, f *fake) string {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestFakeReceivers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		fake     *fake
		policy   lab.Policy
		scenario string
		verdict  string
		words    string
	}{
		{"correct", &fake{}, lab.Fenced, "paused-worker", probe.Agree, ""},
		{"ignores op keys", &fake{ignoreOps: true}, lab.FencedIdempotent, "duplicate-retry", probe.Disagree,
			`step 5: the receiver applied "credit 10 to account 7" with token 41 again although op pay-7 was already applied at step 3`},
		{"no restart", &fake{noRestart: true}, lab.Fenced, "forgetful-receiver", probe.NotTestable,
			"not testable against this receiver: step 6 needs POST /restart"},
		{"500", &fake{fail500: true}, lab.Fenced, "paused-worker", probe.Disagree,
			`step 6: POST ` + "URL" + `/writes: answered 500 Internal Server Error: "database exploded"`},
		{"not JSON", &fake{notJSON: true}, lab.Fenced, "paused-worker", probe.Disagree,
			"a body that is not the JSON the contract describes"},
		{"cas", &fake{cas: true}, lab.CAS, "stale-read-fresh-token", probe.Agree, ""},
		{"cas ignoring the version", &fake{cas: true, blind: true}, lab.CAS, "stale-read-fresh-token", probe.Disagree,
			`step 9: the receiver applied "balance 5" with token 43 expecting version 0; under cas it must reject it (rejected: B's write landed after A read balance (version 0, now 1))`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url := startFake(t, tt.fake)
			p := newProber(t, url, tt.policy)
			res, err := p.Sequential(t.Context(), builtin(t, tt.scenario))
			if err != nil {
				t.Fatal(err)
			}
			words := strings.ReplaceAll(tt.words, "URL", url)
			if res.Verdict != tt.verdict || !strings.Contains(res.Divergence, words) {
				t.Errorf("Sequential(%s) = %s %q, want %s containing %q", tt.scenario, res.Verdict, res.Divergence, tt.verdict, words)
			}
		})
	}
}

// TestStringTokensCaughtConcurrently: tokens climb past 9, 99, 999, where
// comparing them as strings goes wrong.
func TestStringTokensCaughtConcurrently(t *testing.T) {
	slowTest(t)
	p := newProber(t, startFake(t, &fake{stringTokens: true}), lab.Fenced)
	res, err := p.Concurrent(t.Context(), probe.ConcurrentOptions{Workers: 4, Duration: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != probe.Disagree {
		t.Errorf("Concurrent against a receiver comparing strings = %s after %d requests", res.Verdict, res.Concurrent.Requests)
	}
}

func TestOpKeysIgnoredCaughtConcurrently(t *testing.T) {
	slowTest(t)
	p := newProber(t, startFake(t, &fake{ignoreOps: true}), lab.FencedIdempotent)
	res, err := p.Concurrent(t.Context(), probe.ConcurrentOptions{Workers: 4, Duration: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != probe.Disagree || res.Concurrent.Violation == nil || res.Concurrent.Violation.Kind != "duplicate-applied" {
		t.Errorf("Concurrent against a receiver ignoring op keys = %s %q", res.Verdict, res.Divergence)
	}
}

// TestCASBlindCaughtConcurrently: a receiver that claims cas but never
// checks the version applies two writes that read the same version.
func TestCASBlindCaughtConcurrently(t *testing.T) {
	slowTest(t)
	p := newProber(t, startFake(t, &fake{cas: true, blind: true}), lab.CAS)
	res, err := p.Concurrent(t.Context(), probe.ConcurrentOptions{Workers: 4, Duration: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != probe.Disagree || res.Concurrent.Violation == nil || res.Concurrent.Violation.Kind != "lost-update" {
		t.Errorf("Concurrent against a cas receiver ignoring the version = %s %q", res.Verdict, res.Divergence)
	}
}

func TestUnreachable(t *testing.T) {
	slowTest(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + ln.Addr().String()
	ln.Close()
	slow := startFake(t, &fake{slow: 2 * time.Second})
	for _, tt := range []struct{ name, url, words string }{
		{"refused", refused, "cannot connect"},
		{"timeout", slow, "no answer within the timeout"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := probe.NewClient(tt.url, 300*time.Millisecond, 1)
			if err != nil {
				t.Fatal(err)
			}
			p := &probe.Prober{Client: c, Policy: lab.Fenced}
			_, err = p.Sequential(t.Context(), builtin(t, "paused-worker"))
			var ue *probe.UnreachableError
			if !errorsAs(err, &ue) || !strings.Contains(err.Error(), tt.words) {
				t.Errorf("Sequential against %s = %v, want an UnreachableError saying %q", tt.name, err, tt.words)
			}
		})
	}
}

// slowTest skips a test that takes a second or more under -short: the
// everyday loop stays in seconds, and CI runs it.
func slowTest(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("takes a second or more; runs without -short")
	}
}

// goingBack is a correct receiver whose every fifth read, after a write
// landed, answers the version before: a stale replica, say.
type goingBack struct {
	probe.Receiver
	mu    sync.Mutex
	reads int
}

func (g *goingBack) Resource(ctx context.Context, name string) (probe.Holding, error) {
	h, err := g.Receiver.Resource(ctx, name)
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.reads++; err == nil && h.Version != nil && *h.Version > 1 && g.reads%5 == 0 {
		v := *h.Version - 1
		h.Version = &v
	}
	return h, err
}

// TestCASReadBackCaughtConcurrently: a read that answers a lower version
// than a read answered before it was sent is caught.
func TestCASReadBackCaughtConcurrently(t *testing.T) {
	p := newProber(t, startFake(t, &fake{cas: true}), lab.CAS)
	p.Client = &goingBack{Receiver: p.Client}
	res, err := p.Concurrent(t.Context(), probe.ConcurrentOptions{Workers: 2, Duration: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != probe.Disagree || res.Concurrent.Violation == nil || res.Concurrent.Violation.Kind != "version-went-back" {
		t.Errorf("Concurrent against reads that go back = %s %q", res.Verdict, res.Divergence)
	}
}
