package server

import (
	"bytes"
	"compress/gzip"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"

	"fencelab/static"
)

// Cache-Control of the static files: a hashed address names one content
// forever; a plain one is checked again each time (its ETag makes that a 304).
const (
	immutableCache  = "public, max-age=31536000, immutable"
	revalidateCache = "no-cache"
)

// asset is one embedded static file, ready to send: its bytes, gzipped
// once at start-up, and the validator a browser sends back.
type asset struct {
	body, gz    []byte
	etag, ctype string
}

// loadAssets reads and compresses every static file once.
func loadAssets() (map[string]*asset, error) {
	out := map[string]*asset{}
	err := fs.WalkDir(static.FS, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := static.FS.ReadFile(name)
		if err != nil {
			return err
		}
		h, _ := static.Hash(name)
		ctype := mime.TypeByExtension(path.Ext(name))
		if ctype == "" {
			ctype = "text/plain; charset=utf-8"
		}
		out[name] = &asset{body: body, gz: gzipBytes(body), etag: `"` + h + `"`, ctype: ctype}
		return nil
	})
	return out, err
}

// gzipWriters are reused: a gzip.Writer holds some 800 KB of tables, more
// than the page it compresses.
var gzipWriters = sync.Pool{New: func() any {
	zw, _ := gzip.NewWriterLevel(nil, gzip.DefaultCompression)
	return zw
}}

// gzipBytes compresses b; it is done once per kept body.
func gzipBytes(b []byte) []byte {
	buf := bytes.NewBuffer(make([]byte, 0, len(b)/3+64))
	zw := gzipWriters.Get().(*gzip.Writer)
	zw.Reset(buf)
	zw.Write(b)
	zw.Close()
	gzipWriters.Put(zw)
	return buf.Bytes()
}

// handleStatic serves /static/{path}, hashed or plain, from memory.
func (s *Server) handleStatic(c echo.Context) error {
	name, hashed, ok := static.Resolve(c.Param("*"))
	a := s.assets[name]
	if !ok || a == nil {
		return echo.ErrNotFound
	}
	cache := revalidateCache
	if hashed {
		cache = immutableCache
	}
	return sendBytes(c, a.ctype, cache, a.etag, a.body, a.gz)
}

// sendBytes writes a body that is the same for every request of its
// address: a 304 when the client already has it, the gzipped form when the
// client takes it.
func sendBytes(c echo.Context, ctype, cacheControl, etag string, body, gz []byte) error {
	h := c.Response().Header()
	h.Set("Cache-Control", cacheControl)
	h.Set("ETag", etag)
	h.Add("Vary", "Accept-Encoding")
	if etagMatches(c.Request().Header.Get("If-None-Match"), etag) {
		return c.NoContent(http.StatusNotModified)
	}
	if gz != nil && len(gz) < len(body) && acceptsGzip(c.Request()) {
		h.Set("Content-Encoding", "gzip")
		body = gz
	}
	return c.Blob(http.StatusOK, ctype, body)
}

// etagMatches reports whether an If-None-Match header names etag (or is *).
func etagMatches(header, etag string) bool {
	for _, tag := range strings.Split(header, ",") {
		tag = strings.TrimPrefix(strings.TrimSpace(tag), "W/")
		if tag == etag || tag == "*" {
			return true
		}
	}
	return false
}

// acceptsGzip reports whether the request takes a gzipped body: gzip is
// listed without q=0.
func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		coding, params, _ := strings.Cut(part, ";")
		if !strings.EqualFold(strings.TrimSpace(coding), "gzip") {
			continue
		}
		q, found := strings.CutPrefix(strings.ReplaceAll(params, " ", ""), "q=")
		if !found {
			return true
		}
		v, err := strconv.ParseFloat(q, 64)
		return err == nil && v > 0
	}
	return false
}
