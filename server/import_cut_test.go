package server_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestImportBodyCut: a multipart body over the limit without a length is
// cut as it is read (413), and one cut short is a 400, not an import of
// what came.
func TestImportBodyCut(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	fw, _ := w.CreateFormFile("upload", "a.log")
	fw.Write(bytes.Repeat([]byte("2026-12-01T10:00:00Z a acquire token=41\n"), 5<<20/40))
	w.Close()
	for _, tt := range []struct {
		name string
		body []byte
		want int
	}{
		{"over 4 MiB, chunked", b.Bytes(), http.StatusRequestEntityTooLarge},
		{"cut short", b.Bytes()[:1<<20], http.StatusBadRequest},
	} {
		req := httptest.NewRequest(http.MethodPost, "/import/preview", bytes.NewReader(tt.body))
		req.ContentLength = -1
		req.Header.Set("Content-Type", w.FormDataContentType())
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		if rec.Code != tt.want {
			t.Errorf("%s: POST /import/preview = %d %.200s, want %d", tt.name, rec.Code, rec.Body.String(), tt.want)
		}
	}
}
