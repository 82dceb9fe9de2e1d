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

// asset is one embedded static file, ready to send under either of its
// addresses: its bytes, gzipped once at start-up, and the validator a
// browser sends back.
type asset struct {
	hashed, plain *cachedPage // the same bytes under two Cache-Controls
}

// sharedAssets is loadAssets done once per process: the files are
// embedded and never change, and a server only reads them, so every
// server.New (the tests make more than a hundred) shares one copy instead
// of gzipping them all again.
var sharedAssets = sync.OnceValues(loadAssets)

// loadAssets reads and compresses every static file.
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
		gz, etag := gzipBytes(body), `"`+h+`"`
		out[name] = &asset{
			hashed: newFixedPage(ctype, immutableCache, etag, body, gz),
			plain:  newFixedPage(ctype, revalidateCache, etag, body, gz),
		}
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
	if hashed {
		return a.hashed.send(c)
	}
	return a.plain.send(c)
}

// Header values that are the same on every answer of a kept page. They are
// shared by all answers, so nothing may change them in place (Header.Set
// and Add replace or copy them).
var (
	varyAcceptEncoding = []string{"Accept-Encoding"}
	gzipEncoding       = []string{"gzip"}
)

// send writes a body that is the same for every request of its address: a
// 304 when the client already has it (GET and HEAD), the gzipped form when
// the client takes it. The header values were made when the page was kept, and the
// body goes out with its length in one write, so it is not chunked.
func (p *cachedPage) send(c echo.Context) error {
	req, res := c.Request(), c.Response()
	h := res.Header()
	h["Cache-Control"] = p.header.control
	h["Etag"] = p.header.etag
	if v := h["Vary"]; len(v) == 0 {
		h["Vary"] = varyAcceptEncoding
	} else {
		h["Vary"] = append(v, "Accept-Encoding")
	}
	// A 304 answers a GET or HEAD only: a POST (a replay answered from
	// memory) always gets its answer.
	safe := req.Method == http.MethodGet || req.Method == http.MethodHead
	if inm := req.Header["If-None-Match"]; safe && len(inm) > 0 && etagMatches(inm[0], p.etag) {
		res.WriteHeader(http.StatusNotModified)
		return nil
	}
	body, length := p.body, p.header.length
	if (p.lazy || p.gz != nil) && acceptsGzip(req) { // a lazy page's gz is read only through gzipped
		if gz, gzLength := p.gzipped(); gz != nil && len(gz) < len(body) {
			h["Content-Encoding"] = gzipEncoding
			body, length = gz, gzLength
		}
	}
	h["Content-Type"] = p.header.ctype
	h["Content-Length"] = length
	res.WriteHeader(http.StatusOK)
	_, err := res.Write(body)
	return err
}

// etagMatches reports whether an If-None-Match header names etag (or is *).
func etagMatches(header, etag string) bool {
	for header != "" {
		var tag string
		tag, header, _ = strings.Cut(header, ",")
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
	rest := r.Header.Get("Accept-Encoding")
	for rest != "" {
		var part string
		part, rest, _ = strings.Cut(rest, ",")
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
