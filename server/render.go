package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"sync"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
)

const (
	htmlType = "text/html; charset=utf-8"
	jsonType = "application/json; charset=utf-8"
)

// renderBuffers are reused across pages: a page is 30-60 KB, and growing
// a buffer from empty for each one cost more than rendering the table.
var renderBuffers = sync.Pool{New: func() any { return bytes.NewBuffer(make([]byte, 0, 64<<10)) }}

// maxPooledBuffer keeps a rare huge page from pinning its buffer.
const maxPooledBuffer = 1 << 20

// render writes a page. The component renders into a buffer first, so a
// failing component leaves no half-written page behind.
func render(c echo.Context, status int, page templ.Component) error {
	buf := renderBuffers.Get().(*bytes.Buffer)
	buf.Reset()
	defer func() {
		if buf.Cap() <= maxPooledBuffer {
			renderBuffers.Put(buf)
		}
	}()
	if err := page.Render(c.Request().Context(), buf); err != nil {
		return fmt.Errorf("render %s: %w", c.Request().URL.Path, err)
	}
	return c.Blob(status, htmlType, replaceNUL(buf.Bytes()))
}

// replaceNUL replaces raw NUL bytes, which templ's escaping lets through
// (from a pasted scenario shown back, or a run saved before they were
// refused), with U+FFFD as an HTML parser would.
func replaceNUL(page []byte) []byte {
	if bytes.IndexByte(page, 0) < 0 {
		return page
	}
	return bytes.ReplaceAll(page, []byte{0}, []byte("\uFFFD"))
}

// jsonAppender is a value that writes its own JSON without reflection,
// as lab.Trace does.
type jsonAppender interface{ AppendJSON([]byte) []byte }

// writeJSON writes v with encoding/json and a charset in the Content-Type,
// which Echo's c.JSON leaves out. A trace writes itself, into a pooled buffer.
func writeJSON(c echo.Context, status int, v any) error {
	if a, ok := v.(jsonAppender); ok {
		buf := renderBuffers.Get().(*bytes.Buffer)
		defer renderBuffers.Put(buf)
		b := append(a.AppendJSON(buf.AvailableBuffer()[:0]), '\n')
		return c.Blob(status, jsonType, b)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode JSON for %s: %w", c.Request().URL.Path, err)
	}
	return c.Blob(status, jsonType, append(b, '\n'))
}

// seeOther redirects a form post to the page it made, with a small body
// for clients that do not follow redirects.
func seeOther(c echo.Context, target string) error {
	c.Response().Header().Set(echo.HeaderLocation, target)
	body := `<!DOCTYPE html><title>See other</title><a href="` + html.EscapeString(target) + `">Continue</a>`
	return c.Blob(http.StatusSeeOther, htmlType, []byte(body))
}

// absURL is the address of path on this server: under the configured base
// URL, else as the client reached it.
func (s *Server) absURL(c echo.Context, path string) string {
	if s.baseURL != nil {
		return s.baseURL.String() + path
	}
	return c.Scheme() + "://" + c.Request().Host + path
}
