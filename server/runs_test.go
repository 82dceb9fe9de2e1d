package server_test

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"fencelab/lab"
	"fencelab/server"
	"fencelab/views/htmltest"
	"fencelab/views/paths"
)

var runLink = regexp.MustCompile(`^/r/[A-Za-z0-9_-]{16}$`)

// TestSaveRunForm saves from the page's form: 303 to the link, and the
// policies chosen on the page come along in the query.
func TestSaveRunForm(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	src := builtinSource(t, "paused-worker")
	rec := postForm(t, s, "/runs", url.Values{"scenario": {src}, "p": {"unfenced", "fenced"}})
	checkResponse(t, "POST /runs", rec, http.StatusSeeOther, htmlType)
	link := rec.Header().Get("Location")
	if !runLink.MatchString(link) {
		t.Fatalf("POST /runs: Location = %q, want /r/{16 id characters}", link)
	}
	again := postForm(t, s, "/runs", url.Values{"scenario": {src}, "p": {"authoritative"}})
	if got, want := again.Header().Get("Location"), link+"?p=authoritative"; got != want {
		t.Errorf("POST /runs again with p=authoritative: Location = %q, want %q", got, want)
	}

	page := get(t, s, link)
	checkResponse(t, "GET "+link, page, http.StatusOK, htmlType)
	p := parsePage(t, page.Body.Bytes())
	checkPausedWorker(t, p)
	for _, want := range []string{"engine " + lab.Version, `value="http://example.com` + link + `"`, `href="/lab?from=r/` + link[3:] + `"`, "data-copy"} {
		if !strings.Contains(page.Body.String(), want) {
			t.Errorf("GET %s: page lacks %q", link, want)
		}
	}
	if strings.Contains(page.Body.String(), "different trace") {
		t.Errorf("GET %s: says the trace differs, but the engine is the same", link)
	}
}

// TestSaveRunFormInvalid shows the 422 page with the messages and the text
// offered back for fixing.
func TestSaveRunFormInvalid(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	bad := `{"version":1,"title":"","events":[{"actor":"A","kind":"fly"}]}`
	for _, target := range []string{"/runs", "/replay"} {
		rec := postForm(t, s, target, url.Values{"scenario": {bad}})
		checkResponse(t, "POST "+target, rec, http.StatusUnprocessableEntity, htmlType)
		p := parsePage(t, rec.Body.Bytes())
		errs := htmltest.Find(p.root, func(e *html.Node) bool { return htmltest.HasClass(e, "field-errors") })
		if errs == nil || !strings.Contains(htmltest.Text(errs), "Event 1 · kind") || !strings.Contains(htmltest.Text(errs), "title") {
			t.Errorf("POST %s: 422 page does not list event 1's kind and the title", target)
		}
		area := htmltest.Find(p.root, func(e *html.Node) bool { return e.Data == "textarea" })
		if area == nil || htmltest.Text(area) != bad {
			t.Errorf("POST %s: 422 page does not offer the scenario back", target)
		}
	}
	rec := postForm(t, s, "/replay", url.Values{"scenario": {"{nope"}})
	checkResponse(t, "POST /replay malformed", rec, http.StatusBadRequest, htmlType)
}

// TestRunSurvivesRestart saves a run, closes store and server, opens them
// again on the same file: the link shows the identical table.
func TestRunSurvivesRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := builtinSource(t, "forgetful-receiver")
	query := "?p=unfenced&p=fenced&p=fenced-register&p=authoritative"

	db := openDB(t, dir)
	secret, err := db.Secret(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s := newServer(t, db, secret, nil)
	link := postForm(t, s, "/runs", url.Values{"scenario": {src}}).Header().Get("Location")
	before := get(t, s, link+query)
	checkResponse(t, "GET "+link, before, http.StatusOK, htmlType)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	db = openDB(t, dir)
	secret2, err := db.Secret(context.Background())
	if err != nil || !bytes.Equal(secret, secret2) {
		t.Fatalf("secret changed across restart (err %v)", err)
	}
	s = newServer(t, db, secret2, nil)
	after := get(t, s, link+query)
	checkResponse(t, "GET "+link+" after restart", after, http.StatusOK, htmlType)
	if a, b := parsePage(t, before.Body.Bytes()).table(t), parsePage(t, after.Body.Bytes()).table(t); a != b {
		t.Errorf("GET %s: the table changed across a restart", link)
	}
	if again := postForm(t, s, "/runs", url.Values{"scenario": {src}}).Header().Get("Location"); again != link {
		t.Errorf("saving again after restart gave %q, want %q", again, link)
	}
}

// TestRunDrift says so when today's engine gives another trace than the
// stored one.
func TestRunDrift(t *testing.T) {
	t.Parallel()
	db := openDB(t, t.TempDir())
	s := newServer(t, db, testSecret, nil)
	link := postForm(t, s, "/runs", url.Values{"scenario": {builtinSource(t, "paused-worker")}}).Header().Get("Location")
	id := strings.TrimPrefix(link, "/r/")

	stored, err := db.Run(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	stored.ID = "driftdriftdrift0"
	stored.Trace = bytes.Replace(stored.Trace, []byte(`"rejected"`), []byte(`"accepted"`), 1)
	if _, err := db.SaveRun(context.Background(), stored); err != nil {
		t.Fatal(err)
	}
	rec := get(t, s, paths.RunPath(stored.ID))
	checkResponse(t, "GET drifted run", rec, http.StatusOK, htmlType)
	if !strings.Contains(rec.Body.String(), "Today’s engine gives a different trace") {
		t.Errorf("GET /r/%s: page does not say the trace differs", stored.ID)
	}
	if got := parsePage(t, rec.Body.Bytes()).cell(t, 8, "fenced"); !strings.Contains(got, "accepted") {
		t.Errorf("GET /r/%s: row 8 under fenced = %q, want the stored (changed) decision", stored.ID, got)
	}
}

// TestStoreFailure gives the 500 page (or JSON), logs the error, and the
// next request is served.
func TestStoreFailure(t *testing.T) {
	t.Parallel()
	var log bytes.Buffer
	s := newServer(t, failingStore{}, testSecret, &log)
	src := builtinSource(t, "paused-worker")

	rec := postForm(t, s, "/runs", url.Values{"scenario": {src}})
	checkResponse(t, "POST /runs", rec, http.StatusInternalServerError, htmlType)
	if !strings.Contains(rec.Body.String(), "Something went wrong") || strings.Contains(rec.Body.String(), errDisk.Error()) {
		t.Errorf("POST /runs: the 500 page should be generic, got:\n%.400s", rec.Body.String())
	}
	rec = postJSON(t, s, "/api/runs", src)
	checkResponse(t, "POST /api/runs", rec, http.StatusInternalServerError, jsonType)
	rec = get(t, s, "/r/AAAAAAAAAAAAAAAA")
	checkResponse(t, "GET /r/{id}", rec, http.StatusInternalServerError, htmlType)

	if n := strings.Count(log.String(), errDisk.Error()); n != 3 {
		t.Errorf("log has the store's error %d times, want 3 (once per request):\n%s", n, log.String())
	}
	rec = get(t, s, "/scenarios/paused-worker")
	checkResponse(t, "GET /scenarios/paused-worker after failures", rec, http.StatusOK, htmlType)
	if !strings.Contains(log.String(), "status=200") {
		t.Errorf("log lacks the request line of the last request:\n%s", log.String())
	}
}

// TestPanic recovers: the client gets the 500 page, the log the stack, and
// the server goes on.
func TestPanic(t *testing.T) {
	t.Parallel()
	var log bytes.Buffer
	s := newServer(t, panickingStore{}, testSecret, &log)
	rec := get(t, s, "/r/AAAAAAAAAAAAAAAA")
	checkResponse(t, "GET /r/{id} (store panics)", rec, http.StatusInternalServerError, htmlType)
	if !strings.Contains(log.String(), "boom (test)") || !strings.Contains(log.String(), "goroutine") {
		t.Errorf("log lacks the panic and its stack:\n%.800s", log.String())
	}
	rec = get(t, s, "/")
	checkResponse(t, "GET / after a panic", rec, http.StatusOK, htmlType)
}

func TestNewRequiresSecret(t *testing.T) {
	t.Parallel()
	if _, err := server.New(server.Config{Store: failingStore{}, Library: testLibrary(t)}); err == nil {
		t.Errorf("server.New without a secret: no error")
	}
}
