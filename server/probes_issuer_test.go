package server_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"fencelab/lab/probe"
	"fencelab/lab/probe/issuer"
	"fencelab/views/htmltest"
)

// TestSaveIssuerProbe: an issuer probe's run (probe --issuer --save)
// opens as a scenario of its grants, with the history's figures beside
// the table and the verdict said as the issuer's.
func TestSaveIssuerProbe(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	web := httptest.NewServer(s)
	t.Cleanup(web.Close)
	tok := func(n int64) *int64 { return &n }
	hist := []issuer.Op{
		{Worker: "w1", Op: issuer.OpAcquire, Sent: 0, Answered: 0.1, Result: issuer.Granted, Token: tok(500), Owner: "w1-1"},
		{Worker: issuer.Nemesis, Op: "kill-all", Target: "redis-1", Sent: 1, Answered: 2},
		{Worker: "w2", Op: issuer.OpAcquire, Sent: 2.5, Answered: 2.6, Result: issuer.Granted, Token: tok(1), Owner: "w2-1"},
	}
	rep, err := issuer.Check(issuer.Run{Issuer: "redis://127.0.0.1:6379/fencelab", Kind: "redis", Lock: "fencelab", Workers: 2, TTL: 2, StartedByProbe: true}, hist)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := rep.Scenario()
	if err != nil {
		t.Fatal(err)
	}
	res := &probe.Result{Target: rep.Issuer, Scenario: sc.Title, Policy: "fenced", Remember: "durable", Mode: probe.IssuerMode,
		Overrides: rep.Figures(), Verdict: probe.Disagree, Divergence: rep.Line()}
	link, err := probe.Save(t.Context(), web.URL, sc, res)
	if err != nil {
		t.Fatalf("Save: %v", err)
	}
	path := strings.TrimPrefix(link, web.URL)
	page := get(t, s, path)
	checkResponse(t, "GET "+path, page, http.StatusOK, htmlType)
	pg := parsePage(t, page.Body.Bytes())
	sec := htmltest.Find(pg.root, func(n *html.Node) bool { return htmltest.HasClass(n, "observed") })
	if sec == nil {
		t.Fatalf("GET %s: no observed section", path)
	}
	text := htmltest.Text(sec)
	for _, want := range []string{"What the issuer did", "The tokens broke:", "token 1 was granted to w2", "3. after kill-all redis-1", "acquire fencelab token=500", "restart"} {
		if !strings.Contains(text, want) {
			t.Errorf("GET %s: the section lacks %q:\n%s", path, want, text)
		}
	}
	// Steps of a receiver have no place in an issuer's run.
	res.Steps = []probe.Step{{Index: 1, Request: "POST /writes", Expected: &probe.Observation{Outcome: "applied"}, Observed: &probe.Observation{Outcome: "applied"}}}
	if _, err := probe.Save(t.Context(), web.URL, sc, res); err == nil || !strings.Contains(err.Error(), "no steps") {
		t.Errorf("an issuer run with steps was saved: %v", err)
	}
}
