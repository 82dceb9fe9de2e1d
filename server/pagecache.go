package server

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"

	"fencelab/server/internal/lru"
)

// defaultPageCacheBytes bounds the rendered pages kept in memory, and
// replayCacheBytes the answers of POST /api/replay.
const (
	defaultPageCacheBytes = 64 << 20
	replayCacheBytes      = 16 << 20
)

// pageCache keeps the rendered answers of addresses whose answer cannot
// change while the program runs: a built-in scenario's page and a saved
// run's page and exports. They are rendered once, gzipped once and then
// served as bytes, with a strong ETag. Least recently used entries go
// first when the bytes kept pass the bound.
type pageCache struct {
	max   int
	pages *lru.Cache[*cachedPage]
}

// cachedPage is one rendered answer.
type cachedPage struct {
	key      string
	etag     string
	body, gz []byte
	// lazy pages are gzipped when a client first takes gzip, not when kept.
	lazy   bool
	gzOnce sync.Once
	// header holds the answer's header values, made once (see send).
	header struct{ ctype, control, etag, length, gzLength []string }
	cost   int // the bytes counted against the cache's bound when kept
}

// newFixedPage makes a page to send from memory; gz is body gzipped, or
// nil when it is not worth compressing.
func newFixedPage(ctype, control, etag string, body, gz []byte) *cachedPage {
	p := &cachedPage{etag: etag, body: body, gz: gz}
	p.header.ctype = []string{ctype}
	p.header.control = []string{control}
	p.header.etag = []string{etag}
	p.header.length = []string{strconv.Itoa(len(body))}
	if gz != nil {
		p.header.gzLength = []string{strconv.Itoa(len(gz))}
	}
	return p
}

// newLazyPage is newFixedPage for an answer gzipped only when a client
// first takes gzip.
func newLazyPage(key, ctype, control, etag string, body []byte) *cachedPage {
	p := newFixedPage(ctype, control, etag, body, nil)
	p.key, p.lazy = key, true
	return p
}

// gzipped returns the gzipped body and its Content-Length, making them
// now for a lazy page.
func (p *cachedPage) gzipped() ([]byte, []string) {
	if p.lazy {
		p.gzOnce.Do(func() {
			p.gz = gzipBytes(p.body)
			p.header.gzLength = []string{strconv.Itoa(len(p.gz))}
		})
	}
	return p.gz, p.header.gzLength
}

func newPageCache(maxBytes int) *pageCache {
	if maxBytes <= 0 {
		maxBytes = defaultPageCacheBytes
	}
	return &pageCache{max: maxBytes, pages: lru.New[*cachedPage](maxBytes)}
}

// get is the page kept under key, or nil.
func (pc *pageCache) get(key string) *cachedPage {
	p, _ := pc.pages.Get(key)
	return p
}

// getBytes is get of a key held in bytes, which it does not copy.
func (pc *pageCache) getBytes(key []byte) *cachedPage {
	p, _ := pc.pages.GetBytes(key)
	return p
}

func (pc *pageCache) put(p *cachedPage) {
	// A lazy page's gzipped form, made later, is not counted: it is a
	// fraction of the body.
	p.cost = len(p.body) + len(p.gz) + len(p.key)
	if p.cost > pc.max/8 {
		return // one page must not push out everything else
	}
	pc.pages.Put(p.key, p, p.cost)
}

// pageKey names an answer: the host (without --base-url, links in a page
// are built from it; with one, the client's Host plays no part), the
// canonical path (see shown: one key for every spelling of a run's
// address), and the query parameters the cached pages read, as they read
// them: ?p= as the known policies it names, in a fixed order, ?d= when it
// names a policy, ?size= as the picture it asks for. Anything else in the
// query changes nothing and is left out, so that nobody can fill the cache
// with one page under many addresses, or miss it at will.
func (s *Server) pageKey(c echo.Context) string {
	r := c.Request()
	var b strings.Builder
	if s.baseURL == nil {
		b.WriteString(r.Host)
	}
	path, ok := c.Get(canonicalPathKey).(string)
	if !ok {
		path = r.URL.Path
	}
	b.WriteString(path)
	// Policy order on the page follows the spec, not the URL; a ?p=
	// naming none is the default choice, which is not always no ?p=.
	b.WriteString(s.query(c).cacheKey())
	switch size := c.QueryParam("size"); size {
	case "", "card":
	case "full":
		b.WriteString("&size=full")
	default:
		b.WriteString("&size=?") // refused by the handler, never kept
	}
	return b.String()
}

// cached serves h's answer from the page cache, rendering it on the first
// request, in its turn (Server.rendering). Only a 200 is kept; anything else goes out as the handler made
// it. control is the Cache-Control the kept answer is sent with.
func (s *Server) cached(control string, h echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		// A page that names policies that do not exist says so in a
		// notice that quotes them: it is rendered afresh (milliseconds),
		// never kept, so that junk names neither fill the cache nor reach
		// a reader of the plain page. A PNG ignores them and is kept.
		if len(s.query(c).Unknown) > 0 && !strings.HasSuffix(req.URL.Path, ".png") {
			return s.inLane(c, s.work.large, h)
		}
		key := s.pageKey(c)
		if p := s.pages.get(key); p != nil {
			return p.send(c)
		}
		if req.Method != http.MethodGet {
			return s.inLane(c, s.work.large, h)
		}
		res := c.Response()
		rec := &recorder{header: res.Header()}
		// A page rendered takes its turn, as a replay does (work.go).
		err := record(res, rec, func() error { return s.inLane(c, s.work.large, h) })
		if err != nil {
			res.Header().Del("Content-Length")
			return err
		}
		if rec.status != http.StatusOK {
			return c.Blob(rec.status, res.Header().Get("Content-Type"), rec.body.Bytes())
		}
		p := newCachedPage(key, res.Header().Get("Content-Type"), control, rec.body.Bytes())
		s.pages.put(p)
		return p.send(c)
	}
}

func newCachedPage(key, ctype, control string, body []byte) *cachedPage {
	sum := sha256.Sum256(body)
	var gz []byte
	if ctype != pngType { // a PNG is compressed already
		gz = gzipBytes(body)
	}
	p := newFixedPage(ctype, control, `"`+base64.RawURLEncoding.EncodeToString(sum[:18])+`"`, bytes.Clone(body), gz)
	p.key = key
	return p
}

// recorder takes a handler's answer so that it can be kept and sent in
// its gzipped form.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.body.Write(b)
}

// record runs h with the response going into rec, and puts the real
// writer back afterwards, even when h panics, so the error page reaches
// the client.
func record(res *echo.Response, rec *recorder, h func() error) error {
	orig := res.Writer
	res.Writer = rec
	defer func() {
		res.Writer = orig
		res.Committed, res.Status, res.Size = false, 0, 0
	}()
	return h()
}
