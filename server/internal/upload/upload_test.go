package upload_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"fencelab/server/internal/upload"
)

// TestImportBodyReadOnce: a 4 MiB upload is read once, into the one
// string the page shows again, not buffered, copied into a file header
// and read again as ParseMultipartForm and a ReadAll did (about five
// times its size allocated). The fields and the file come out whole.
func TestImportBodyReadOnce(t *testing.T) {
	line := "2026-12-01T10:00:00Z a write token=41 resource=r value=v\n"
	text := strings.Repeat(line, (4<<20-4096)/len(line))
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	w.WriteField("op", "suggest")
	fw, err := w.CreateFormFile("upload", "a.log")
	if err != nil {
		t.Fatal(err)
	}
	fw.Write([]byte(text))
	w.WriteField("skew", "50ms")
	w.Close()
	body := b.Bytes()

	req := httptest.NewRequest(http.MethodPost, "/import?x=1", bytes.NewReader(body))
	req.Header.Set("Content-Type", w.FormDataContentType())
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	form, err := upload.Read(req)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(form.Uploads) != 1 || form.Uploads[0].Name != "a.log" || form.Uploads[0].Text != text {
		t.Fatalf("uploads = %d, want a.log whole", len(form.Uploads))
	}
	if req.FormValue("op") != "suggest" || req.FormValue("skew") != "50ms" || req.FormValue("x") != "1" {
		t.Errorf("FormValue op, skew, x = %q, %q, %q; want suggest, 50ms, 1", req.FormValue("op"), req.FormValue("skew"), req.FormValue("x"))
	}
	got, most := after.TotalAlloc-before.TotalAlloc, uint64(3*len(text))
	t.Logf("a %d-byte upload read with %d bytes allocated", len(text), got)
	if got > most {
		t.Errorf("reading a %d-byte upload allocated %d bytes, want at most %d (3 times its size)", len(text), got, most)
	}
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
