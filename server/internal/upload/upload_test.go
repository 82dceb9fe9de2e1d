package upload_test

import (
	"bytes"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"fencelab/server/internal/upload"
)

// multipartOf is a form of fields, then of files (field, name, text).
func multipartOf(fields [][2]string, files [][3]string) ([]byte, string) {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for _, f := range fields {
		w.WriteField(f[0], f[1])
	}
	for _, f := range files {
		fw, _ := w.CreateFormFile(f[0], f[1])
		fw.Write([]byte(f[2]))
	}
	w.Close()
	return b.Bytes(), w.FormDataContentType()
}

func post(body []byte, ct string) *http.Request {
	req := httptest.NewRequest(http.MethodPost, "/import?x=1", bytes.NewReader(body))
	req.Header.Set("Content-Type", ct)
	return req
}

// textOf reads a file's bytes through Open, twice, as its readers do.
func textOf(t *testing.T, f upload.File) string {
	t.Helper()
	var texts [2]string
	for i := range texts {
		r, n := f.Open()
		b, err := io.ReadAll(io.NewSectionReader(r, 0, n))
		if err != nil {
			t.Fatal(err)
		}
		texts[i] = string(b)
	}
	if texts[0] != texts[1] {
		t.Fatalf("%s read twice: %d and %d bytes", f.Name, len(texts[0]), len(texts[1]))
	}
	return texts[0]
}

// spoolDir points the spools to a directory of the test's, and gives it.
func spoolDir(t *testing.T) string {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	return dir
}

// leftIn fails the test if dir holds a file, or if the process still
// holds one of dir's files open (a spool removed from its directory but
// not closed, whose space is not freed).
func leftIn(t *testing.T, dir, after string) {
	t.Helper()
	if es, _ := os.ReadDir(dir); len(es) > 0 {
		t.Errorf("after %s, %d files left in the spool directory, as %s", after, len(es), es[0].Name())
	}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return // no /proc here: the directory's check alone
	}
	for _, fd := range fds {
		if to, _ := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); strings.HasPrefix(to, dir) {
			t.Errorf("after %s, the spool %s is still open", after, to)
		}
	}
}

// TestImportBodySpooled: a 4 MiB upload and a 4 MiB pasted log are
// written to spools as they arrive, through a small buffer: reading the
// form allocates a small part of their size, where reading each into one
// string allocated twice it. Their bytes, the fields' and the query's
// come out whole, and Close frees the spools.
func TestImportBodySpooled(t *testing.T) {
	dir := spoolDir(t)
	line := "2026-12-01T10:00:00Z a write token=41 resource=r value=v\n"
	text := strings.Repeat(line, (2<<20-4096)/len(line))
	body, ct := multipartOf([][2]string{{"op", "suggest"}, {"name", "pasted.log"}, {"log", text + "pasted"}, {"skew", "50ms"}},
		[][3]string{{"upload", "a.log", text}})
	req := post(body, ct)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	form, err := upload.Read(req)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(form.Uploads) != 1 || form.Uploads[0].Name != "a.log" || !form.Uploads[0].Spooled() || textOf(t, form.Uploads[0]) != text {
		t.Errorf("uploads = %d, want a.log whole and spooled", len(form.Uploads))
	}
	if len(form.Logs) != 1 || !form.Logs[0].Spooled() || textOf(t, form.Logs[0]) != text+"pasted" {
		t.Errorf("pasted logs = %d, want one whole and spooled", len(form.Logs))
	}
	if req.FormValue("op") != "suggest" || req.FormValue("skew") != "50ms" || req.FormValue("x") != "1" || req.FormValue("name") != "pasted.log" {
		t.Errorf("FormValue op, skew, x, name = %q, %q, %q, %q; want suggest, 50ms, 1, pasted.log",
			req.FormValue("op"), req.FormValue("skew"), req.FormValue("x"), req.FormValue("name"))
	}
	if req.FormValue("log") != "" {
		t.Errorf("FormValue log = %.20q..., want the log in Logs only", req.FormValue("log"))
	}
	got, most := after.TotalAlloc-before.TotalAlloc, uint64(256<<10)
	t.Logf("a form of %d bytes read with %d bytes allocated", len(body), got)
	if got > most {
		t.Errorf("reading a form of %d bytes allocated %d bytes, want at most %d: the logs are held, not spooled", len(body), got, most)
	}
	if err := form.Close(); err != nil {
		t.Error(err)
	}
	leftIn(t, dir, "Close")
	if err := form.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
}

// TestImportBodyInMemory: a log of InMemory bytes stays in memory; one
// byte more is spooled; both read back whole, as does an empty one.
func TestImportBodyInMemory(t *testing.T) {
	dir := spoolDir(t)
	at, over := strings.Repeat("a", upload.InMemory), strings.Repeat("b", upload.InMemory+1)
	body, ct := multipartOf([][2]string{{"log", at}, {"log", over}, {"log", ""}}, [][3]string{{"upload", "at", at}, {"upload", "over", over}})
	form, err := upload.Read(post(body, ct))
	if err != nil {
		t.Fatal(err)
	}
	defer leftIn(t, dir, "Close")
	defer form.Close()
	files := append(form.Logs, form.Uploads...)
	want := []struct {
		text    string
		spooled bool
	}{{at, false}, {over, true}, {"", false}, {at, false}, {over, true}}
	if len(files) != len(want) {
		t.Fatalf("%d logs, want %d", len(files), len(want))
	}
	for i, w := range want {
		if f := files[i]; f.Spooled() != w.spooled || f.Size() != int64(len(w.text)) || textOf(t, f) != w.text || f.Text() != w.text {
			t.Errorf("log %d: spooled %v, %d bytes; want spooled %v, %d bytes, whole", i, f.Spooled(), f.Size(), w.spooled, len(w.text))
		}
	}
}

// TestImportBodyMapfile: the mapping file is kept in memory, its first
// MaxMapfile bytes, all that a mapping's reader reads; the form's other
// files are read into nothing.
func TestImportBodyMapfile(t *testing.T) {
	dir := spoolDir(t)
	big := strings.Repeat(" ", upload.MaxMapfile+100)
	body, ct := multipartOf(nil, [][3]string{{"mapfile", "m.json", big}, {"mapfile", "second.json", "{}"}, {"other", "o", big}})
	form, err := upload.Read(post(body, ct))
	if err != nil {
		t.Fatal(err)
	}
	defer form.Close()
	if m := form.Mapfile; m == nil || m.Name != "m.json" || m.Spooled() || m.Size() != upload.MaxMapfile {
		t.Errorf("the mapping file = %+v, want m.json's first %d bytes, in memory", m, upload.MaxMapfile)
	}
	if len(form.Uploads)+len(form.Logs) != 0 || len(form.Values) != 0 {
		t.Errorf("%d uploads, %d logs, values %v: want none", len(form.Uploads), len(form.Logs), form.Values)
	}
	leftIn(t, dir, "a form of no logs")
}

// TestImportBodyParts: a form of more parts than ParseMultipartForm took
// is refused, not read.
func TestImportBodyParts(t *testing.T) {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for range upload.MaxParts + 1 {
		w.WriteField("log", "x")
	}
	w.Close()
	req := httptest.NewRequest(http.MethodPost, "/import", &b)
	req.Header.Set("Content-Type", w.FormDataContentType())
	if _, err := upload.Read(req); err != upload.ErrParts {
		t.Errorf("a form of %d parts: error %v, want %v", upload.MaxParts+1, err, upload.ErrParts)
	}
}

// TestImportBodyFails: a form that fails to read after logs were spooled
// (cut short by the body limit, cut short by the client, malformed after
// them, of too many parts) is an error, and leaves no spool behind, open
// or in the directory.
func TestImportBodyFails(t *testing.T) {
	dir := spoolDir(t)
	big := strings.Repeat("x", 1<<20)
	body, ct := multipartOf([][2]string{{"log", big}}, [][3]string{{"upload", "a", big}, {"upload", "b", big}})
	many := bytes.NewBuffer(nil)
	mw := multipart.NewWriter(many)
	mw.WriteField("log", big)
	for range upload.MaxParts {
		mw.WriteField("f", "x")
	}
	mw.Close()
	for _, tt := range []struct {
		name string
		req  func() *http.Request
		want func(error) bool
	}{
		{"the body limit", func() *http.Request {
			req := post(body, ct)
			req.Body = http.MaxBytesReader(httptest.NewRecorder(), req.Body, int64(len(body)-100))
			return req
		}, func(err error) bool { var big *http.MaxBytesError; return errors.As(err, &big) }},
		{"a client gone", func() *http.Request {
			req := post(nil, ct)
			req.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body[:len(body)-2<<19]), errReader{}))
			return req
		}, func(err error) bool { return errors.Is(err, errGone) }},
		{"a malformed form", func() *http.Request { return post(body[:len(body)-300], ct) }, func(err error) bool { return err != nil }},
		{"too many parts", func() *http.Request { return post(many.Bytes(), mw.FormDataContentType()) },
			func(err error) bool { return err == upload.ErrParts }},
	} {
		form, err := upload.Read(tt.req())
		if form != nil || !tt.want(err) {
			t.Errorf("%s: form %v, error %v", tt.name, form != nil, err)
		}
		leftIn(t, dir, tt.name)
	}
}

var errGone = errors.New("connection reset by peer")

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errGone }
