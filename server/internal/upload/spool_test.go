package upload

import (
	"bytes"
	"errors"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

// TestImportSpoolFull: a spool that cannot be written (here a file open
// for reading only, as a full disk refuses writes), or cannot be made, is
// a *SpoolError, and the spools made before it are closed and gone.
func TestImportSpoolFull(t *testing.T) {
	dir := t.TempDir()
	made := 0
	readOnly := func() (*os.File, error) {
		f, err := os.CreateTemp(dir, "fencelab-upload-*")
		if err != nil {
			return nil, err
		}
		f.Close()
		if made++; made == 1 {
			return os.OpenFile(f.Name(), os.O_RDWR, 0) // the first one writes
		}
		return os.Open(f.Name())
	}
	noDir := func() (*os.File, error) { return os.CreateTemp(dir+"/none", "x") }
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	w.WriteField("log", strings.Repeat("x", 2*InMemory))
	w.WriteField("log", strings.Repeat("y", 2*InMemory))
	w.Close()
	for name, create := range map[string]func() (*os.File, error){"a spool that refuses writes": readOnly, "no directory": noDir} {
		t.Run(name, func(t *testing.T) {
			made = 0
			createTemp = create
			defer func() { createTemp = func() (*os.File, error) { return os.CreateTemp("", "fencelab-upload-*") } }()
			req := httptest.NewRequest(http.MethodPost, "/import", bytes.NewReader(b.Bytes()))
			req.Header.Set("Content-Type", w.FormDataContentType())
			form, err := Read(req)
			var se *SpoolError
			if form != nil || !errors.As(err, &se) {
				t.Fatalf("form %v, error %v; want a *SpoolError", form != nil, err)
			}
			if es, _ := os.ReadDir(dir); len(es) > 0 {
				t.Errorf("%d spools left, as %s", len(es), es[0].Name())
			}
		})
	}
}
