package server_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/net/html"

	"fencelab/lab"
	"fencelab/scenarios"
	"fencelab/server"
	"fencelab/server/store"
	"fencelab/server/store/sqlite"
	"fencelab/views/htmltest"
)

// countingStore counts the queries that reach the store.
type countingStore struct {
	store.Runs
	mu      sync.Mutex
	queries int
}

func (s *countingStore) Run(ctx context.Context, id string) (store.Run, error) {
	s.mu.Lock()
	s.queries++
	s.mu.Unlock()
	return s.Runs.Run(ctx, id)
}

// failingStore fails every call, as a broken disk would.
type failingStore struct{}

var errDisk = errors.New("disk I/O error (test)")

func (failingStore) SaveRun(context.Context, store.Run) (store.Run, error) {
	return store.Run{}, errDisk
}
func (failingStore) Run(context.Context, string) (store.Run, error) { return store.Run{}, errDisk }
func (failingStore) Secret(context.Context) ([]byte, error)         { return nil, errDisk }
func (failingStore) Ping(context.Context) error                     { return errDisk }

// panickingStore panics on every read, as a bug would.
type panickingStore struct{ failingStore }

func (panickingStore) Run(context.Context, string) (store.Run, error) { panic("boom (test)") }

var (
	libraryOnce sync.Once
	library     *lab.Library
	libraryErr  error
)

func testLibrary(t testing.TB) *lab.Library {
	t.Helper()
	libraryOnce.Do(func() { library, libraryErr = lab.LoadLibrary(scenarios.FS, scenarios.Order()) })
	if libraryErr != nil {
		t.Fatalf("LoadLibrary: %v", libraryErr)
	}
	return library
}

func builtinSource(t testing.TB, name string) string {
	t.Helper()
	b, ok := testLibrary(t).Get(name)
	if !ok {
		t.Fatalf("no built-in %q", name)
	}
	return string(b.Source)
}

// migrated is the file of a new database with every migration applied and
// no secret yet, made once: a copy opens in a fraction of the time that
// migrating a new file takes (a commit per migration, each waiting for the
// disk), which most tests here did before their first request.
var migrated = sync.OnceValues(func() ([]byte, error) {
	dir, err := os.MkdirTemp("", "fencelab-migrated-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "fencelab.db")
	db, err := sqlite.Open(path)
	if err != nil {
		return nil, err
	}
	if err := db.Close(); err != nil {
		return nil, err
	}
	// The last connection to close folds the write-ahead log into the file.
	if _, err := os.Stat(path + "-wal"); !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s-wal is left after Close (err %v): the copy would miss the migrations", path, err)
	}
	return os.ReadFile(path)
})

// openDB opens the SQLite file in dir, a copy of migrated when there is
// none yet, and closes it at the end of the test.
func openDB(t testing.TB, dir string) *sqlite.DB {
	t.Helper()
	path := filepath.Join(dir, "fencelab.db")
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		b, err := migrated()
		if err != nil {
			t.Fatalf("migrated database: %v", err)
		}
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	db, err := sqlite.Open(path)
	if err != nil {
		t.Fatalf("sqlite.Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// newServer builds the whole handler around store; log collects its log.
func newServer(t testing.TB, store store.Runs, secret []byte, log io.Writer) *server.Server {
	t.Helper()
	if log == nil {
		log = io.Discard
	}
	logger := slog.New(slog.NewTextHandler(log, nil))
	s, err := server.New(server.Config{
		Store: store, Library: testLibrary(t), Secret: secret,
		Logger: logger, AccessLog: logger,
	})
	if err != nil {
		t.Fatalf("server.New: %v", err)
	}
	return s
}

// sharedStore is the database under the servers of newTestServer, opened
// once and closed by TestMain. The tests that use it read and save runs
// but never look into the store itself, and a save of the same scenario
// twice is one run under one link, so they need no file of their own;
// opening and closing one per test was much of their cost.
var sharedStore struct {
	once   sync.Once
	dir    string
	db     *sqlite.DB
	secret []byte
	err    error
}

// openSharedStore opens sharedStore, once.
func openSharedStore() (*sqlite.DB, []byte, error) {
	st := &sharedStore
	st.once.Do(func() {
		b, err := migrated()
		if err == nil {
			st.dir, err = os.MkdirTemp("", "fencelab-shared-")
		}
		if err == nil {
			err = os.WriteFile(filepath.Join(st.dir, "fencelab.db"), b, 0o600)
		}
		if err == nil {
			st.db, err = sqlite.Open(filepath.Join(st.dir, "fencelab.db"))
		}
		if err == nil {
			st.secret, err = st.db.Secret(context.Background())
		}
		st.err = err
	})
	return st.db, st.secret, st.err
}

// closeSharedStore closes sharedStore, if it was opened, and removes its
// file.
func closeSharedStore() {
	if sharedStore.db != nil {
		sharedStore.db.Close()
	}
	if sharedStore.dir != "" {
		os.RemoveAll(sharedStore.dir)
	}
}

// sharedDB is sharedStore's database, and its secret.
func sharedDB(t testing.TB) (*sqlite.DB, []byte) {
	t.Helper()
	db, secret, err := openSharedStore()
	if err != nil {
		t.Fatalf("shared database: %v", err)
	}
	return db, secret
}

// newTestServer is a new server (its own page cache, budgets and limits)
// on sharedStore.
func newTestServer(t testing.TB) *server.Server {
	t.Helper()
	db, secret := sharedDB(t)
	return newServer(t, db, secret, nil)
}

// newServerOnOwnDB is a server on a SQLite file of its own in a temp dir,
// for a test that reads what only its own saves may have put there.
func newServerOnOwnDB(t testing.TB) *server.Server {
	t.Helper()
	db := openDB(t, t.TempDir())
	secret, err := db.Secret(context.Background())
	if err != nil {
		t.Fatalf("Secret: %v", err)
	}
	return newServer(t, db, secret, nil)
}

var testSecret = []byte("0123456789abcdef0123456789abcdef")

// do sends one request through the whole handler and checks the headers
// every response must carry.
func do(t *testing.T, h http.Handler, method, target, contentType string, body io.Reader) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, target, body)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	checkSecurityHeaders(t, method+" "+target, rec.Result().Header)
	return rec
}

func get(t *testing.T, h http.Handler, target string) *httptest.ResponseRecorder {
	t.Helper()
	return do(t, h, http.MethodGet, target, "", nil)
}

func postJSON(t *testing.T, h http.Handler, target, body string) *httptest.ResponseRecorder {
	t.Helper()
	return do(t, h, http.MethodPost, target, "application/json", strings.NewReader(body))
}

func postForm(t *testing.T, h http.Handler, target string, form url.Values) *httptest.ResponseRecorder {
	t.Helper()
	return do(t, h, http.MethodPost, target, "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
}

func checkSecurityHeaders(t *testing.T, call string, h http.Header) {
	t.Helper()
	want := map[string]string{
		"Content-Security-Policy": "default-src 'self'",
		"X-Content-Type-Options":  "nosniff",
		"X-Frame-Options":         "DENY",
		"Referrer-Policy":         "same-origin",
	}
	for name, prefix := range want {
		if got := h.Get(name); !strings.HasPrefix(got, prefix) {
			t.Errorf("%s: header %s = %q, want prefix %q", call, name, got, prefix)
		}
	}
	if csp := h.Get("Content-Security-Policy"); strings.Contains(csp, "unsafe-inline") {
		t.Errorf("%s: CSP allows inline code: %q", call, csp)
	}
}

// checkResponse checks status and Content-Type of a response.
func checkResponse(t *testing.T, call string, rec *httptest.ResponseRecorder, status int, contentType string) {
	t.Helper()
	if rec.Code != status {
		t.Errorf("%s: status = %d, want %d; body:\n%.600s", call, rec.Code, status, rec.Body.String())
	}
	if got := rec.Header().Get("Content-Type"); !strings.EqualFold(got, contentType) {
		t.Errorf("%s: Content-Type = %q, want %q", call, got, contentType)
	}
}

const (
	htmlType = "text/html; charset=utf-8"
	jsonType = "application/json; charset=utf-8"
)

// page is a parsed HTML response, for asserting what a reader sees.
type page struct{ root *html.Node }

func parsePage(t testing.TB, body []byte) page {
	t.Helper()
	root, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("html.Parse: %v", err)
	}
	return page{root}
}

// row returns the table row of step n.
func (p page) row(t *testing.T, n int) *html.Node {
	t.Helper()
	id := fmt.Sprintf("step-%d", n)
	tr := htmltest.Find(p.root, func(e *html.Node) bool { return e.Data == "tr" && htmltest.Attr(e, "id") == id })
	if tr == nil {
		t.Fatalf("no row %s", id)
	}
	return tr
}

// cell is the text of the row's cell for policy (or column label).
func (p page) cell(t *testing.T, n int, label string) string {
	t.Helper()
	td := htmltest.Find(p.row(t, n), func(e *html.Node) bool { return e.Data == "td" && htmltest.Attr(e, "data-label") == label })
	if td == nil {
		t.Fatalf("row %d has no cell %q", n, label)
	}
	return htmltest.Text(td)
}

// verdict is the text of the verdict card of policy.
func (p page) verdict(t *testing.T, policy string) string {
	t.Helper()
	art := htmltest.Find(p.root, func(e *html.Node) bool {
		h3 := htmltest.Find(e, func(h *html.Node) bool { return h.Data == "h3" })
		return e.Data == "article" && htmltest.HasClass(e, "verdict") && h3 != nil && htmltest.Text(h3) == policy
	})
	if art == nil {
		t.Fatalf("no verdict for %s", policy)
	}
	return htmltest.Text(art)
}

// columns are the policy headings of the step table.
func (p page) columns() []string {
	var out []string
	for _, th := range htmltest.FindAll(p.root, func(e *html.Node) bool { return e.Data == "th" && htmltest.HasClass(e, "col-policy") }) {
		out = append(out, htmltest.Text(th))
	}
	return out
}

// table renders the step table and the verdicts back to HTML, to compare two pages.
func (p page) table(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for _, class := range []string{"steps", "verdict-grid"} {
		n := htmltest.Find(p.root, func(e *html.Node) bool { return htmltest.HasClass(e, class) })
		if n == nil {
			t.Fatalf("no element of class %s", class)
		}
		if err := html.Render(&b, n); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}
