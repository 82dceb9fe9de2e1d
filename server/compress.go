package server

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"net"
	"net/http"
	"strings"
	"sync"

	"fencelab/views/paths"

	"github.com/labstack/echo/v4"
)

// exportCache is the Cache-Control of a saved run's exports: the run never
// changes, but the way an export is drawn may change with an upgrade, so a
// day's keeping and then the ETag.
const exportCache = "public, max-age=86400"

// minGzip is the smallest body worth compressing: below it the gzip
// header and the CPU cost more than the bytes saved.
const minGzip = 1024

// compress gzips the answers that are made per request (the editor, the
// explorer, the API) for clients that take gzip. Static files and cached
// pages carry their gzipped form already, and a stream of server-sent
// events must reach the client as it is written.
//
// It answers as echo's Gzip middleware does (this is its code, adapted),
// but takes a compressor only once a body passes minGzip: echo's takes one
// from its pool as each request begins, and a pooled compressor holds
// about 1 MB, so every request waiting for its turn (an import, a replay,
// a page to render) or for its refusal's moment held one: 250 waiting
// renders held a quarter of a gigabyte doing nothing.
func compress(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if selfEncoded(c.Path()) || strings.Contains(c.Request().Header.Get("Accept"), "text/event-stream") ||
			c.QueryParam("stream") != "" {
			return next(c)
		}
		res := c.Response()
		res.Header().Add(echo.HeaderVary, echo.HeaderAcceptEncoding)
		if !strings.Contains(c.Request().Header.Get(echo.HeaderAcceptEncoding), "gzip") {
			return next(c)
		}
		rw := res.Writer
		grw := &gzipWriter{ResponseWriter: rw}
		defer func() {
			// Nothing written, or less than minGzip: the answer goes out
			// as it is, and an error page after it is written plainly.
			if !grw.wroteBody || !grw.compressing {
				if res.Header().Get(echo.HeaderContentEncoding) == "gzip" {
					res.Header().Del(echo.HeaderContentEncoding)
				}
				res.Writer = rw
				if grw.wroteHeader {
					rw.WriteHeader(grw.code)
				}
				if grw.wroteBody {
					grw.buffer.WriteTo(rw)
				}
			}
			grw.close()
			res.Writer = rw
		}()
		res.Writer = grw
		return next(c)
	}
}

// gzippers are the compressors, kept for the next answer.
var gzippers = sync.Pool{New: func() any {
	w, _ := gzip.NewWriterLevel(nil, gzip.DefaultCompression)
	return w
}}

// gzipWriter buffers an answer until it passes minGzip, then takes a
// compressor and writes it gzipped.
type gzipWriter struct {
	http.ResponseWriter
	gz          *gzip.Writer // nil until compressing
	buffer      bytes.Buffer
	code        int
	wroteHeader bool
	wroteBody   bool
	compressing bool
}

func (w *gzipWriter) WriteHeader(code int) {
	w.Header().Del(echo.HeaderContentLength)
	w.wroteHeader = true
	w.code = code // written once it is known whether the body is gzipped
}

func (w *gzipWriter) Write(b []byte) (int, error) {
	if w.Header().Get(echo.HeaderContentType) == "" {
		w.Header().Set(echo.HeaderContentType, http.DetectContentType(b))
	}
	w.wroteBody = true
	if w.compressing {
		return w.gz.Write(b)
	}
	n, err := w.buffer.Write(b)
	if w.buffer.Len() >= minGzip {
		w.start()
		if _, err := w.gz.Write(w.buffer.Bytes()); err != nil {
			return 0, err
		}
		w.buffer = bytes.Buffer{}
	}
	return n, err
}

// start takes a compressor and writes the header, gzipped.
func (w *gzipWriter) start() {
	w.compressing = true
	w.Header().Set(echo.HeaderContentEncoding, "gzip")
	if w.wroteHeader {
		w.ResponseWriter.WriteHeader(w.code)
	}
	w.gz = gzippers.Get().(*gzip.Writer)
	w.gz.Reset(w.ResponseWriter)
}

// Flush sends what is written so far, gzipped, since more may follow.
func (w *gzipWriter) Flush() {
	if !w.compressing {
		w.start()
		w.gz.Write(w.buffer.Bytes())
		w.buffer = bytes.Buffer{}
	}
	w.gz.Flush()
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// close ends the gzipped body and gives the compressor back.
func (w *gzipWriter) close() {
	if w.gz == nil {
		return
	}
	w.gz.Close()
	w.gz.Reset(nil)
	gzippers.Put(w.gz)
	w.gz = nil
}

func (w *gzipWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *gzipWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(w.ResponseWriter).Hijack()
}

// selfEncoded reports whether the route at path sends its own gzipped form.
func selfEncoded(path string) bool {
	switch path {
	case paths.RouteHome, paths.RouteScenario, paths.RouteRun, paths.RouteAPIRun, paths.RouteStatic,
		paths.RouteRunEmbed, paths.RouteScenarioEmbed, paths.RouteFavicon, paths.RouteIconSVG, paths.RouteIcon192,
		paths.RouteIcon512, paths.RouteAppleTouchIcon, paths.RouteManifest, paths.RouteAPIReplay:
		return true
	}
	return false
}
