package logs

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// file is one named log for an import.
type file struct{ name, text string }

// run imports files under mapping m (JSON) with opt.
func run(t *testing.T, m string, opt Options, files ...file) (*Result, error) {
	t.Helper()
	mp, err := ReadMapping(strings.NewReader(m))
	if err != nil {
		t.Fatalf("ReadMapping(%s): %v", m, err)
	}
	im := New(mp, opt)
	for _, f := range files {
		if err := im.Add(f.name, strings.NewReader(f.text)); err != nil {
			t.Fatalf("Add(%s): %v", f.name, err)
		}
	}
	return im.Finish(context.Background())
}

// exampleFiles reads the walkthrough's logs from docs/import.
func exampleFiles(t testing.TB) (mapping string, files []file) {
	t.Helper()
	dir := filepath.Join("..", "..", "docs", "import")
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, n := range []string{"scheduler.jsonl", "worker-1.log", "worker-2.log", "storage.csv"} {
		files = append(files, file{n, read(n)})
	}
	return read("mapping.json"), files
}

// simpleMap maps a logfmt or JSON log with fields t, who, msg, tok, req, out, val.
const simpleMap = `{"time": "t", "actor": "who", "token": "tok", "request": "req", "value": "val",
 "kind": {"field": "msg", "values": {"grant": "acquire", "expired": "expire", "sent": "send", "recv": "deliver", "write": "write", "pause": "pause", "resume": "resume"}},
 "observed": {"field": "out", "values": {"ok": "applied", "no": "rejected"}}}`
