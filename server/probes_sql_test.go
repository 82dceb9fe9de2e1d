package server_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"fencelab/lab"
	"fencelab/lab/probe"
	"fencelab/lab/probe/sqlprobe"
	"fencelab/views/htmltest"
)

// textTokens is a SQLite receiver that keeps its token as text: it
// rejects token 10 after 9.
const textTokens = `-- tokens as text: '10' < '9'
-- name: reset
CREATE TABLE IF NOT EXISTS r (name TEXT PRIMARY KEY, value TEXT, token TEXT);
DELETE FROM r;
-- name: write
INSERT INTO r (name, value, token) VALUES (:resource, :value, CAST(:token AS TEXT))
 ON CONFLICT (name) DO UPDATE SET value = excluded.value, token = excluded.token WHERE r.token <= excluded.token;
-- name: read
SELECT value, token FROM r WHERE name = :resource;
`

// TestSaveSQLProbe: a SQL probe's saved page shows the statement file,
// numbered line by line, beside expected and observed.
func TestSaveSQLProbe(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	web := httptest.NewServer(s)
	t.Cleanup(web.Close)
	f, err := sqlprobe.Parse("text-tokens.sql", strings.NewReader(textTokens))
	if err != nil {
		t.Fatal(err)
	}
	r, err := sqlprobe.Open(t.Context(), f, filepath.Join(t.TempDir(), "r.db"), sqlprobe.Options{Policy: lab.Fenced})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	in, err := os.Open("../docs/sql/nine-to-ten.json")
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	sc, err := lab.Parse(in)
	if err != nil {
		t.Fatal(err)
	}
	p := &probe.Prober{Client: r, Policy: lab.Fenced, Remember: lab.Durable}
	res, err := p.Sequential(t.Context(), sc)
	if err != nil || res.Verdict != probe.Disagree {
		t.Fatalf("Sequential(nine-to-ten) against text tokens = %+v, %v; want a disagreement", res, err)
	}
	r.Annotate(res)
	played, err := p.SavedScenario(sc, res)
	if err != nil {
		t.Fatal(err)
	}
	link, err := probe.Save(t.Context(), web.URL, played, res)
	if err != nil {
		t.Fatalf("Save: %v", err)
	}
	path := strings.TrimPrefix(link, web.URL)
	page := get(t, s, path)
	checkResponse(t, "GET "+path, page, http.StatusOK, htmlType)
	pg := parsePage(t, page.Body.Bytes())
	fig := htmltest.Find(pg.root, func(n *html.Node) bool { return htmltest.HasClass(n, "observed-sql") })
	if fig == nil || !strings.Contains(htmltest.Text(fig), "text-tokens.sql on SQLite") {
		t.Fatalf("GET %s: no statement file beside the table", path)
	}
	line6 := htmltest.Find(fig, func(n *html.Node) bool { return htmltest.Attr(n, "id") == "sql-L6" })
	if line6 == nil || !strings.HasPrefix(htmltest.Text(line6), "6INSERT INTO r (name, value, token)") {
		t.Errorf("GET %s: line 6 of the file = %q, want it numbered and as written", path, htmltest.Text(line6))
	}
	queries := htmltest.Find(fig, func(n *html.Node) bool { return htmltest.HasClass(n, "sql-queries") })
	if queries == nil || !strings.Contains(htmltest.Text(queries), "write 5 write :resource :value :token") {
		t.Errorf("GET %s: the queries table = %q, want write at line 5 playing write with its placeholders", path, htmltest.Text(queries))
	}
	maps := htmltest.Find(fig, func(n *html.Node) bool { return htmltest.HasClass(n, "sql-maps") })
	if maps == nil || !strings.Contains(htmltest.Text(maps), "reset=reset") {
		t.Errorf("GET %s: no role map beside the table", path)
	}
	first := htmltest.Find(pg.root, func(n *html.Node) bool { return htmltest.HasClass(n, "observed-first") })
	if first == nil || htmltest.Attr(first, "id") != "observed-5" {
		t.Errorf("GET %s: no highlighted first divergence at step 5", path)
	}
	if !strings.Contains(page.Body.String(), "block write statement 1 (text-tokens.sql line 6)") {
		t.Errorf("GET %s: the divergence does not name the statement that decided", path)
	}
	md := get(t, s, path+".md")
	if !strings.Contains(md.Body.String(), "```sql\n-- tokens as text") || !strings.Contains(md.Body.String(), "| write | 5 | write | :resource :value :token |") {
		t.Errorf("GET %s.md lacks the statement file:\n%s", path, md.Body.String())
	}
	// The requests are the queries that ran, not the HTTP contract's.
	for what, body := range map[string]string{"GET " + path: page.Body.String(), "GET " + path + ".md": md.Body.String()} {
		if strings.Contains(body, "POST /writes") || !strings.Contains(body, "SQL write") {
			t.Errorf("%s names its requests POST /writes or not SQL write:\n%s", what, body)
		}
	}
}
