package views_test

import (
	"bytes"
	"context"
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fencelab/views"
)

// spoolText is a log of size bytes whose every 32 KiB edge falls inside
// something the page escapes or cannot cut: an entity's character, a NUL,
// a CRLF, a rune of three bytes, bytes that are not UTF-8.
func spoolText(size int) string {
	var b strings.Builder
	edge := []string{`<&>'"`, "\x00\r\n", "€", "\xff\xfe", "a\r\nb"}
	for i := 0; b.Len() < size; i++ {
		b.WriteString(strings.Repeat("t=1 msg=heartbeat\r\n", (32<<10-b.Len()%(32<<10))/20))
		for b.Len()%(32<<10) < 32<<10-2 {
			b.WriteByte('x')
		}
		b.WriteString(edge[i%len(edge)])
	}
	return b.String()[:size]
}

// TestImportTextStreamed: the page that shows logs copied from their
// spools in chunks is byte for byte the page of the same logs held in
// strings, and each textarea holds its log as { f.Text } wrote it,
// html.EscapeString's escaping.
func TestImportTextStreamed(t *testing.T) {
	texts := []string{spoolText(64 << 10), spoolText(64<<10 + 1), spoolText(200 << 10), "small <b>&amp;</b> \"'\x00\r\n\xff"}
	var held, spooled views.ImportPage
	dir := t.TempDir()
	for i, text := range texts {
		name := filepath.Join(dir, "log"+string(rune('a'+i)))
		if err := os.WriteFile(name, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		held.Files = append(held.Files, views.ImportFile{Name: name, Text: text, Format: "logfmt"})
		body := views.ImportFile{Name: name, Body: f, Size: int64(len(text)), Format: "logfmt"}
		if i%2 == 1 {
			body.Body = bytes.NewReader([]byte(text))
		}
		spooled.Files = append(spooled.Files, body)
	}
	render := func(p views.ImportPage) string {
		var b strings.Builder
		if err := views.Import(p).Render(context.Background(), &b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	want, got := render(held), render(spooled)
	if got != want {
		i := 0
		for i < min(len(got), len(want)) && got[i] == want[i] {
			i++
		}
		t.Errorf("the page of spooled logs (%d bytes) differs from the page of held ones (%d bytes) at byte %d: %q vs %q",
			len(got), len(want), i, got[max(0, i-30):min(len(got), i+30)], want[max(0, i-30):min(len(want), i+30)])
	}
	for i, text := range texts {
		if !strings.Contains(got, `wrap="off">`+html.EscapeString(text)+`</textarea>`) {
			t.Errorf("log %d of %d bytes: its textarea does not hold it as html.EscapeString writes it", i, len(text))
		}
	}
	if !strings.Contains(got, "(4 loaded)") {
		t.Errorf("the page does not count 4 logs loaded")
	}
}

// TestImportFileBlank: a spooled log is blank as strings.TrimSpace says
// its text is.
func TestImportFileBlank(t *testing.T) {
	for _, text := range []string{"", " \r\n\t\v\f", "\u00a0\u2003\u0085 \n", " x ", "\xff", "  \x00", strings.Repeat(" ", 5000) + "€"} {
		f := views.ImportFile{Body: strings.NewReader(text), Size: int64(len(text))}
		if want := strings.TrimSpace(text) == ""; f.Blank() != want || (views.ImportFile{Text: text}).Blank() != want {
			t.Errorf("%q: Blank %v, want %v", text, f.Blank(), want)
		}
	}
}
