package server_test

import (
	"bytes"
	"encoding/json"
	"html"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fencelab/lab/logs"
)

// TestImportLookAtTheLogs is the page's first step: before Import, the
// look at the logs shows each file's format, its candidate fields and
// its message texts with their counts, on the page and as the preview's
// fragment; the suggested mapping downloads as --suggest prints it.
func TestImportLookAtTheLogs(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	f := exampleForm(t)
	f.Set("op", "suggest")
	rec := postForm(t, s, "/import", f)
	checkResponse(t, "POST /import op=suggest", rec, http.StatusOK, htmlType)
	body := rec.Body.String()
	for _, want := range []string{"What the logs look like", `<span class="mono">scheduler.jsonl</span>: jsonl, 7 lines`,
		`<span class="mono">storage.csv</span>: csv, 4 lines`, "<dt>request</dt><dd class=\"mono\">request_id</dd>",
		`<td class="mono">lease granted </td><td>2</td><td class="mono">scheduler.jsonl:2</td><td>acquire</td>`} {
		if !strings.Contains(body, want) {
			t.Errorf("POST /import op=suggest: page lacks %q", want)
		}
	}
	if strings.Contains(body, "Observed against the model") {
		t.Errorf("POST /import op=suggest: the page imported; the first step only looks")
	}

	body2, ctype := multipartForm(t, f, nil)
	rec = do(t, s, http.MethodPost, "/import/preview", ctype, body2)
	if b := rec.Body.String(); rec.Code != http.StatusOK || strings.Contains(b, "<html") || strings.Count(b, `class="suggest-file"`) != 4 {
		t.Errorf("POST /import/preview op=suggest = %d, want the section alone with 4 files; got %.300s", rec.Code, b)
	}

	f.Set("op", "suggestion")
	rec = postForm(t, s, "/import", f)
	m, err := logs.ReadMapping(bytes.NewReader(rec.Body.Bytes()))
	if rec.Code != http.StatusOK || !strings.Contains(rec.Header().Get("Content-Disposition"), "attachment") || err != nil || len(m.Files) != 4 {
		t.Errorf("POST /import op=suggestion = %d %q, mapping %v (%v); want an attachment with a section per file", rec.Code, rec.Header().Get("Content-Disposition"), m, err)
	}
}

// TestImportExampleLogs: "Try the example logs" fills the page with the
// walkthrough and imports it, whatever the form held.
func TestImportExampleLogs(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	rec := postForm(t, s, "/import", map[string][]string{"op": {"example"}, "name": {"mine.log"}, "log": {"x=1"}})
	checkResponse(t, "POST /import op=example", rec, http.StatusOK, htmlType)
	body := rec.Body.String()
	for _, want := range []string{`value="scheduler.jsonl"`, `value="worker-2.log"`, "1. The logs (4 loaded)",
		"the resource behaved like <code>unfenced</code>: it applied token 41 after it had applied 42 (step 11, stale-overwrite)"} {
		if !strings.Contains(body, want) {
			t.Errorf("POST /import op=example: page lacks %q", want)
		}
	}
	if strings.Contains(body, "mine.log") {
		t.Errorf("POST /import op=example kept the pasted log")
	}
}

// TestImportKeepsALoadedMapping: a version 2 mapping file survives the
// page's next post in a hidden field, and wins over the form's fields
// until the reviewer turns it off.
func TestImportKeepsALoadedMapping(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	flat, err := os.ReadFile(filepath.Join("..", "docs", "import", "mapping.json"))
	if err != nil {
		t.Fatal(err)
	}
	v2 := strings.Replace(string(flat), `"host": "host"`, `"host": "host",
  "files": [{"match": "worker-*.log", "token": ["generation", "gen"]}]`, 1)
	form := exampleForm(t)
	body, ctype := multipartForm(t, form, map[string][]byte{"mapfile": []byte(v2)})
	rec := do(t, s, http.MethodPost, "/import", ctype, body)
	page := rec.Body.String()
	if !strings.Contains(page, "The loaded mapping is in use: 1 section (worker-*.log)") || !strings.Contains(page, `name="mapping_json"`) {
		t.Fatalf("POST /import with a version 2 mapping: no loaded mapping kept; errors %s", errorsOf(page))
	}
	kept := hiddenValue(t, page, "mapping_json")
	if _, err := logs.ReadMapping(strings.NewReader(kept)); err != nil || !strings.Contains(kept, "worker-*.log") {
		t.Fatalf("the kept mapping %q does not read back: %v", kept, err)
	}

	// The next post, without the file and with the form's fields changed:
	// the kept mapping still imports.
	form.Set("mapping_json", kept)
	form.Set("map_kind", "no-such-field")
	rec = postForm(t, s, "/import", form)
	if !strings.Contains(rec.Body.String(), "the resource behaved like <code>unfenced</code>") {
		t.Errorf("POST /import with the kept mapping: no verdict; errors %s", errorsOf(rec.Body.String()))
	}
	form.Set("mapping_off", "1")
	rec = postForm(t, s, "/import", form)
	if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), "no-such-field") {
		t.Errorf("POST /import with the kept mapping turned off = %d, want the form's field refused; errors %s", rec.Code, errorsOf(rec.Body.String()))
	}
}

// hiddenValue is the unescaped value of the hidden input called name.
func hiddenValue(t *testing.T, page, name string) string {
	t.Helper()
	i := strings.Index(page, `name="`+name+`" value="`)
	if i < 0 {
		t.Fatalf("no hidden %s", name)
	}
	rest := page[i+len(`name="`+name+`" value="`):]
	return html.UnescapeString(rest[:strings.IndexByte(rest, '"')])
}

// TestImportSuggestJSON: asked for JSON, the first step answers what
// fencelab import --suggest --json prints; a binary file is named as no
// log in the section.
func TestImportSuggestJSON(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	f := exampleForm(t)
	f.Set("op", "suggest")
	body, ctype := multipartForm(t, f, nil)
	req := httptest.NewRequest(http.MethodPost, "/import/preview", body)
	req.Header.Set("Content-Type", ctype)
	req.Header.Set("Accept", "application/json")
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	var got struct {
		Mapping json.RawMessage
		Files   []struct {
			File, Format string
			Lines        int
			Messages     []struct {
				Text  string
				Count int
			}
		}
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || rec.Code != http.StatusOK || len(got.Files) != 4 {
		t.Fatalf("POST /import/preview op=suggest (JSON) = %d %.300s (%v), want 4 files", rec.Code, rec.Body.String(), err)
	}
	if f := got.Files[0]; f.File != "scheduler.jsonl" || f.Format != "jsonl" || f.Lines != 7 || f.Messages[0].Text != "lease granted" || f.Messages[0].Count != 2 {
		t.Errorf("first file = %+v, want scheduler.jsonl, jsonl, 7 lines, lease granted twice", f)
	}
	if _, err := logs.ReadMapping(bytes.NewReader(got.Mapping)); err != nil {
		t.Errorf("the suggested mapping does not read: %v", err)
	}

	body, ctype = multipartForm(t, map[string][]string{"op": {"suggest"}}, map[string][]byte{"upload": []byte("\x7fELF\x00\x01\x02\x03\nmore\x00")})
	rec = do(t, s, http.MethodPost, "/import", ctype, body)
	if page := rec.Body.String(); !strings.Contains(page, `<span class="mono">upload.bin</span>: not a log`) || !strings.Contains(page, "upload.bin:1: binary data") {
		t.Errorf("POST /import op=suggest with a binary file: the section does not say it is no log; %.300s", errorsOf(page))
	}
}
