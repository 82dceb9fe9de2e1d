package server_test

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fencelab/lab/logs"
)

// exampleForm is the import page's form filled with the walkthrough's
// logs of docs/import, pasted, and no mapping yet.
func exampleForm(t *testing.T) url.Values {
	t.Helper()
	f := url.Values{}
	for _, name := range []string{"scheduler.jsonl", "worker-1.log", "worker-2.log", "storage.csv"} {
		b, err := os.ReadFile(filepath.Join("..", "docs", "import", name))
		if err != nil {
			t.Fatal(err)
		}
		f.Add("name", name)
		f.Add("log", string(b))
	}
	return f
}

func TestImportPage(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	rec := get(t, s, "/import")
	checkResponse(t, "GET /import", rec, http.StatusOK, htmlType)
	for _, want := range []string{`enctype="multipart/form-data"`, `data-preview="/import/preview"`, `name="upload"`, `name="map_kind"`, "4 MiB"} {
		if !strings.Contains(rec.Body.String(), want) {
			t.Errorf("GET /import: page lacks %q", want)
		}
	}
	if !strings.Contains(get(t, s, "/").Body.String(), `href="/import"`) {
		t.Errorf("GET /: the header does not link to /import")
	}
}

// TestImportSuggested imports the walkthrough with the mapping the page
// suggests: it finds the fields and the message kinds by their names.
func TestImportSuggested(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	rec := postForm(t, s, "/import", exampleForm(t))
	checkResponse(t, "POST /import (example, no mapping)", rec, http.StatusOK, htmlType)
	body := rec.Body.String()
	for _, want := range []string{
		`value="generation"`, `value="request_id"`, // suggested slots
		"the resource behaved like <code>unfenced</code>: it applied token 41 after it had applied 42 (step 11, stale-overwrite)",
		"at step 11 (storage.csv:4) the resource applied token 41, which <code>fenced</code> would have rejected",
		"worker-2.log:5: not logfmt", // the cut line
		`<option value="deliver" selected>`,
		"(read as logfmt)", "(read as csv)",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("POST /import (example): page lacks %q", want)
		}
	}
}

func TestImportSaveAndShow(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	f := exampleForm(t)
	f.Set("op", "save")
	rec := postForm(t, s, "/import", f)
	loc := rec.Header().Get("Location")
	if rec.Code != http.StatusSeeOther || !strings.HasPrefix(loc, "/r/") {
		t.Fatalf("POST /import op=save = %d Location %q, want 303 to /r/ID; body %.400s", rec.Code, loc, rec.Body.String())
	}
	run := get(t, s, loc)
	checkResponse(t, "GET "+loc, run, http.StatusOK, htmlType)
	for _, want := range []string{"What the logs say the resource did", "expected (unfenced)", "storage.csv:4", "observed-agrees"} {
		if !strings.Contains(run.Body.String(), want) {
			t.Errorf("GET %s: saved import lacks %q", loc, want)
		}
	}
	if md := get(t, s, loc+".md"); md.Code != http.StatusOK || !strings.Contains(md.Body.String(), "- ✓ **unfenced** the resource behaved like `unfenced`") {
		t.Errorf("GET %s.md = %d, want 200 with the verdicts; body %.600s", loc, md.Code, md.Body.String())
	}
	f.Set("op", "editor")
	rec = postForm(t, s, "/import", f)
	if loc := rec.Header().Get("Location"); rec.Code != http.StatusSeeOther || !strings.HasPrefix(loc, "/lab?from=r/") {
		t.Errorf("POST /import op=editor = %d Location %q, want 303 to the editor", rec.Code, loc)
	}
}

func TestImportMappingRoundTrip(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	f := exampleForm(t)
	f.Set("op", "mapping")
	rec := postForm(t, s, "/import", f)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Header().Get("Content-Disposition"), "attachment") {
		t.Fatalf("POST /import op=mapping = %d %q, want an attachment", rec.Code, rec.Header().Get("Content-Disposition"))
	}
	m, err := logs.ReadMapping(bytes.NewReader(rec.Body.Bytes()))
	if err != nil || m.Kind.Field != "msg" || m.Flat().Token != "generation" {
		t.Fatalf("downloaded mapping = %+v, %v; want msg and generation", m, err)
	}
	// Loaded again with the next incident's logs, it maps them.
	body, ctype := multipartForm(t, exampleForm(t), map[string][]byte{"mapfile": rec.Body.Bytes()})
	rec = do(t, s, http.MethodPost, "/import", ctype, body)
	if !strings.Contains(rec.Body.String(), "the resource behaved like <code>unfenced</code>") {
		t.Errorf("POST /import with the mapping file: no verdict; body %.600s", rec.Body.String())
	}
}

func TestImportPreview(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	body, ctype := multipartForm(t, exampleForm(t), nil)
	rec := do(t, s, http.MethodPost, "/import/preview", ctype, body)
	checkResponse(t, "POST /import/preview", rec, http.StatusOK, htmlType)
	if b := rec.Body.String(); strings.Contains(b, "<html") || !strings.Contains(b, "Observed against the model") {
		t.Errorf("POST /import/preview: want the result section alone; got %.300s", b)
	}
}

// TestImportTooLarge sends a 1 GB upload: refused at once, by its length,
// and the server keeps serving.
func TestImportTooLarge(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	req := httptest.NewRequest(http.MethodPost, "/import", io.LimitReader(zeros{}, 1<<30))
	req.ContentLength = 1 << 30
	req.Header.Set("Content-Type", "multipart/form-data; boundary=x")
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	if rec.Code != http.StatusRequestEntityTooLarge || !strings.Contains(rec.Body.String(), "4 MiB") {
		t.Errorf("POST /import of 1 GB = %d %.200s, want 413 naming the 4 MiB limit", rec.Code, rec.Body.String())
	}
	// Without a length (chunked), the body is cut at the limit.
	req = httptest.NewRequest(http.MethodPost, "/import", io.LimitReader(zeros{}, 5<<20))
	req.ContentLength = -1
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec = httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	if rec.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("POST /import of 5 MiB chunked = %d, want 413", rec.Code)
	}
	if rec := get(t, s, "/import"); rec.Code != http.StatusOK {
		t.Errorf("GET /import after the uploads = %d, want 200", rec.Code)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	return len(p), nil
}

func TestImportHostile(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	tests := []struct {
		name  string
		form  url.Values
		files map[string][]byte
		want  string
	}{
		{"binary upload", url.Values{}, map[string][]byte{"upload": []byte("\x7fELF\x00\x01\x02\x03\nmore\x00")}, "upload.bin:1: binary data"},
		{"absent fields", url.Values{"name": {"a.log"}, "log": {"t=1 who=A msg=grant\n"}, "map_kind": {"event"}, "map_token": {"lease.gen"}, "kv_value": {"grant"}, "kv_kind": {"acquire"}},
			nil, `field &#34;event&#34;, which no line has`},
		{"bad skew", url.Values{"name": {"a.log"}, "log": {"t=1 who=A msg=grant\n"}, "map_kind": {"msg"}, "map_actor": {"who"}, "kv_value": {"grant"}, "kv_kind": {"acquire"}, "skew": {"soon"}},
			nil, "give a duration such as 50ms"},
		{"too many files", url.Values{"name": {"a", "b", "c", "d", "e"}, "log": {"x=1", "x=1", "x=1", "x=1", "x=1"}}, nil, "at most 4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, ctype := multipartForm(t, tt.form, tt.files)
			rec := do(t, s, http.MethodPost, "/import", ctype, body)
			if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), tt.want) {
				t.Errorf("POST /import (%s) = %d, want 422 with %q; body %s", tt.name, rec.Code, tt.want, errorsOf(rec.Body.String()))
			}
		})
	}
}

// multipartForm encodes a form with files, each named upload.bin or
// mapping.json after its field.
func multipartForm(t *testing.T, f url.Values, files map[string][]byte) (io.Reader, string) {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for k, vs := range f {
		for _, v := range vs {
			w.WriteField(k, v)
		}
	}
	for field, content := range files {
		name := "upload.bin"
		if field == "mapfile" {
			name = "mapping.json"
		}
		fw, err := w.CreateFormFile(field, name)
		if err != nil {
			t.Fatal(err)
		}
		fw.Write(content)
	}
	w.Close()
	return &b, w.FormDataContentType()
}

// errorsOf is the page's list of reasons, for a failure message.
func errorsOf(body string) string {
	if i := strings.Index(body, `id="import-errors-h"`); i >= 0 {
		return body[i:min(len(body), i+1200)]
	}
	return "(no reasons on the page)"
}
