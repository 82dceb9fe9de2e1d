package server_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"image"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"fencelab/server"
	"fencelab/views/htmltest"
)

const testBase = "https://lab.example/fence"

// newSharingServer is a test server with a base URL, as a deployment
// that wants link previews has.
func newSharingServer(t *testing.T) *server.Server {
	t.Helper()
	db, _ := sharedDB(t)
	s, err := server.New(server.Config{Store: db, Library: testLibrary(t), Secret: testSecret, BaseURL: testBase})
	if err != nil {
		t.Fatalf("server.New: %v", err)
	}
	return s
}

// metaTags reads a page's <meta property|name=... content=...> and
// <link rel=... href=...> tags from its head.
func metaTags(t *testing.T, body []byte) map[string]string {
	t.Helper()
	p := parsePage(t, body)
	head := htmltest.Find(p.root, func(n *html.Node) bool { return n.Data == "head" })
	if head == nil {
		t.Fatalf("page has no head")
	}
	tags := map[string]string{}
	for _, n := range htmltest.FindAll(head, func(n *html.Node) bool { return n.Data == "meta" || n.Data == "link" }) {
		switch {
		case htmltest.Attr(n, "property") != "":
			tags[htmltest.Attr(n, "property")] = htmltest.Attr(n, "content")
		case htmltest.Attr(n, "name") != "":
			tags[htmltest.Attr(n, "name")] = htmltest.Attr(n, "content")
		case n.Data == "link" && htmltest.Attr(n, "type") != "":
			tags["link "+htmltest.Attr(n, "rel")+" "+htmltest.Attr(n, "type")] = htmltest.Attr(n, "href")
		case n.Data == "link":
			tags["link "+htmltest.Attr(n, "rel")] = htmltest.Attr(n, "href")
		}
	}
	return tags
}

func TestRunPageShareTags(t *testing.T) {
	t.Parallel()
	s := newSharingServer(t)
	id := saveRun(t, s, "paused-worker")
	req := httptest.NewRequest(http.MethodGet, "/r/"+id, nil)
	req.Host = "attacker.example" // a forged Host must not reach the tags
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	checkResponse(t, "GET /r/"+id, rec, http.StatusOK, htmlType)
	tags := metaTags(t, rec.Body.Bytes())
	run := testBase + "/r/" + id
	want := map[string]string{
		"og:title":                               "The lease ended before the process stopped",
		"og:type":                                "article",
		"og:url":                                 run,
		"link canonical":                         run,
		"og:image":                               run + ".png",
		"og:image:width":                         "1200",
		"og:image:height":                        "630",
		"twitter:card":                           "summary_large_image",
		"twitter:image":                          run + ".png",
		"twitter:title":                          "The lease ended before the process stopped",
		"link icon image/svg+xml":                "/icon.svg",
		"link manifest":                          "/manifest.webmanifest",
		"link alternate application/json+oembed": testBase + "/oembed?format=json&url=" + url.QueryEscape(run),
	}
	for k, v := range want {
		if tags[k] != v {
			t.Errorf("GET /r/%s: tag %s = %q, want %q", id, k, tags[k], v)
		}
	}
	desc := "unfenced: 3 violations (stale-overwrite, superseded-write, unowned-write) · fenced: no invariant violated"
	for _, k := range []string{"og:description", "twitter:description", "description"} {
		if tags[k] != desc {
			t.Errorf("GET /r/%s: %s = %q, want the verdicts in one line %q", id, k, tags[k], desc)
		}
	}
	if !strings.Contains(tags["og:image:alt"], "unfenced corrupts data; fenced keeps the data") {
		t.Errorf("GET /r/%s: og:image:alt = %q, want the card, the failure beside the fix, in words", id, tags["og:image:alt"])
	}
	p := parsePage(t, rec.Body.Bytes())
	code := htmltest.Find(p.root, func(n *html.Node) bool { return n.Data == "textarea" && htmltest.Attr(n, "id") == "embed-code" })
	if code == nil || code.FirstChild == nil || !strings.HasPrefix(code.FirstChild.Data, `<iframe src="`+run+`/embed" width="900" height="`) {
		t.Errorf("GET /r/%s: the embed code is missing or not an iframe of %s/embed", id, run)
	}
	if bytes.Contains(rec.Body.Bytes(), []byte("attacker.example")) {
		t.Errorf("GET /r/%s with Host attacker.example: the page names that host", id)
	}
}

// Without a base URL a page still says what it is, but gives no address
// it would have to take from the Host header.
func TestShareTagsWithoutBaseURL(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	rec := get(t, s, "/scenarios/paused-worker")
	tags := metaTags(t, rec.Body.Bytes())
	if tags["og:title"] != "The lease ended before the process stopped" || tags["og:description"] == "" {
		t.Errorf("GET /scenarios/paused-worker: og:title %q, og:description %q; want the title and the lesson", tags["og:title"], tags["og:description"])
	}
	for _, k := range []string{"og:url", "og:image", "link canonical", "twitter:image"} {
		if v, ok := tags[k]; ok {
			t.Errorf("GET /scenarios/paused-worker without a base URL has %s = %q, want none", k, v)
		}
	}
	if tags["twitter:card"] != "summary" {
		t.Errorf("twitter:card = %q, want summary without a picture", tags["twitter:card"])
	}
}

func TestScenarioAndExploreShareTags(t *testing.T) {
	t.Parallel()
	s := newSharingServer(t)
	tags := metaTags(t, get(t, s, "/scenarios/paused-worker?d=unfenced").Body.Bytes())
	if want := testBase + "/scenarios/paused-worker.png?d=unfenced"; tags["og:image"] != want {
		t.Errorf("scenario og:image = %q, want the diagram the page shows, %q", tags["og:image"], want)
	}
	if b, _ := testLibrary(t).Get("paused-worker"); b.Lesson == "" || tags["og:description"] != b.Lesson {
		t.Errorf("scenario og:description = %q, want its lesson %q", tags["og:description"], b.Lesson)
	}
	tags = metaTags(t, get(t, s, "/explore?from=paused-worker").Body.Bytes())
	if !strings.HasPrefix(tags["og:title"], "Every ordering: ") || !strings.Contains(tags["og:description"], "orderings") {
		t.Errorf("explore og:title %q, og:description %q", tags["og:title"], tags["og:description"])
	}
	if tags["og:url"] != testBase+"/explore?from=paused-worker" || tags["og:image"] != testBase+"/explore.png?from=paused-worker" {
		t.Errorf("explore og:url %q, og:image %q", tags["og:url"], tags["og:image"])
	}
}

func TestRunPNG(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	id := saveRun(t, s, "paused-worker")
	type pictureCase struct {
		target string
		w, h   int // 0: the full diagram
	}
	tests := []pictureCase{
		{"/r/" + id + ".png", 1200, 630},
		{"/r/" + id + ".png?d=unfenced&size=card", 1200, 630},
		{"/scenarios/paused-worker.png?d=unfenced", 1200, 630},
	}
	if !testing.Short() {
		// Drawn and decoded, the full diagram costs more than the three
		// cards together. views/diagram's tests draw it under -short too.
		tests = append(tests, pictureCase{"/r/" + id + ".png?size=full", 0, 0})
	}
	for _, tt := range tests {
		rec := get(t, s, tt.target)
		checkResponse(t, "GET "+tt.target, rec, http.StatusOK, "image/png")
		img, err := png.Decode(bytes.NewReader(rec.Body.Bytes()))
		if err != nil {
			t.Fatalf("GET %s: not a PNG: %v", tt.target, err)
		}
		b := img.Bounds()
		if tt.w > 0 && (b.Dx() != tt.w || b.Dy() != tt.h) {
			t.Errorf("GET %s is %dx%d, want %dx%d", tt.target, b.Dx(), b.Dy(), tt.w, tt.h)
		}
		if tt.w == 0 && b.Dx() < 1600 {
			t.Errorf("GET %s is %dx%d, want the diagram at twice its size", tt.target, b.Dx(), b.Dy())
		}
		if n := colours(img); n < 16 {
			t.Errorf("GET %s has %d colours, want a drawing, not a blank", tt.target, n)
		}
		if got := rec.Header().Get("Cross-Origin-Resource-Policy"); got != "cross-origin" {
			t.Errorf("GET %s: Cross-Origin-Resource-Policy %q, want cross-origin so that other sites can show it", tt.target, got)
		}
		again := get(t, s, tt.target)
		if again.Header().Get("ETag") == "" || again.Header().Get("ETag") != rec.Header().Get("ETag") || !bytes.Equal(again.Body.Bytes(), rec.Body.Bytes()) {
			t.Errorf("GET %s twice: ETag %q then %q; want the same kept picture", tt.target, rec.Header().Get("ETag"), again.Header().Get("ETag"))
		}
	}
	for target, status := range map[string]int{
		"/r/" + id + ".png?size=huge":  http.StatusBadRequest,
		"/r/AAAAAAAAAAAAAAAA.png":      http.StatusNotFound,
		"/scenarios/no-such-thing.png": http.StatusNotFound,
		"/scenarios/paused-worker.gif": http.StatusNotFound,
	} {
		if rec := get(t, s, target); rec.Code != status {
			t.Errorf("GET %s = %d, want %d", target, rec.Code, status)
		}
	}
}

// colours counts the distinct colours of a picture, up to 1000.
func colours(img image.Image) int {
	seen := map[[3]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y && len(seen) < 1000; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			r, g, bl, _ := img.At(x, y).RGBA()
			seen[[3]uint32{r, g, bl}] = true
		}
	}
	return len(seen)
}

// TestOnlyEmbedIsFramable: the embed routes allow any site to frame them;
// every other address keeps frame-ancestors 'none' and X-Frame-Options.
func TestOnlyEmbedIsFramable(t *testing.T) {
	t.Parallel()
	s := newSharingServer(t)
	id := saveRun(t, s, "paused-worker")
	for _, target := range []string{"/r/" + id + "/embed", "/scenarios/paused-worker/embed?p=unfenced&p=fenced&p=fenced-register"} {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
		checkResponse(t, "GET "+target, rec, http.StatusOK, htmlType)
		h := rec.Header()
		if csp := h.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors *") || strings.Contains(csp, "unsafe-inline") {
			t.Errorf("GET %s: CSP %q, want frame-ancestors * and no inline code", target, csp)
		}
		if xfo := h.Get("X-Frame-Options"); xfo != "" {
			t.Errorf("GET %s: X-Frame-Options %q, want none", target, xfo)
		}
		p := parsePage(t, rec.Body.Bytes())
		if htmltest.Find(p.root, func(n *html.Node) bool { return n.Data == "header" && htmltest.HasClass(n, "site-header") }) != nil {
			t.Errorf("GET %s carries the site's header", target)
		}
		if htmltest.Find(p.root, func(n *html.Node) bool { return n.Data == "svg" && htmltest.HasClass(n, "diagram") }) == nil ||
			htmltest.Find(p.root, func(n *html.Node) bool { return n.Data == "table" && htmltest.HasClass(n, "steps") }) == nil {
			t.Errorf("GET %s lacks the diagram or the table", target)
		}
		cols := htmltest.FindAll(p.root, func(n *html.Node) bool { return n.Data == "th" && htmltest.HasClass(n, "col-policy") })
		if len(cols) != 2 {
			t.Errorf("GET %s has %d policy columns, want 2 at most in a frame", target, len(cols))
		}
		back := htmltest.FindAll(p.root, func(n *html.Node) bool { return n.Data == "a" && htmltest.Attr(n, "target") == "_blank" })
		if len(back) == 0 || !strings.HasPrefix(htmltest.Attr(back[0], "href"), strings.TrimSuffix(strings.SplitN(target, "/embed", 2)[0], "/")) {
			t.Errorf("GET %s: no link back to the full page out of the frame", target)
		}
		if htmltest.Find(p.root, func(n *html.Node) bool { return n.Data == "script" }) != nil {
			t.Errorf("GET %s has a script; the embed works without JavaScript", target)
		}
	}
	for _, target := range []string{"/", "/scenarios/paused-worker", "/scenarios/paused-worker/present", "/r/" + id,
		"/r/" + id + "/present", "/r/" + id + ".md", "/r/" + id + ".svg", "/r/" + id + ".png", "/lab", "/explore?from=paused-worker",
		"/api/scenarios", "/oembed?url=" + url.QueryEscape(testBase+"/r/"+id), "/favicon.ico", "/manifest.webmanifest", "/no-such-page"} {
		rec := get(t, s, target) // checks X-Frame-Options DENY
		if csp := rec.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("GET %s: CSP %q, want frame-ancestors 'none'", target, csp)
		}
	}
}

func TestOEmbed(t *testing.T) {
	t.Parallel()
	s := newSharingServer(t)
	id := saveRun(t, s, "paused-worker")
	link := testBase + "/r/" + id + "?d=unfenced"
	rec := get(t, s, "/oembed?format=json&maxwidth=640&url="+url.QueryEscape(link))
	checkResponse(t, "GET /oembed", rec, http.StatusOK, jsonType)
	var got map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
		t.Fatalf("oEmbed answer is not JSON: %v", err)
	}
	want := map[string]any{
		"version": "1.0", "type": "rich", "provider_name": "fencelab", "width": 640.0,
		"title": "The lease ended before the process stopped", "thumbnail_width": 1200.0,
		"thumbnail_url": testBase + "/r/" + id + ".png?d=unfenced",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("oEmbed %s = %v, want %v", k, got[k], v)
		}
	}
	frame, _ := got["html"].(string)
	if !strings.Contains(frame, `<iframe src="`+testBase+"/r/"+id+`/embed?d=unfenced"`) || !strings.Contains(frame, `width="640"`) {
		t.Errorf("oEmbed html = %q, want an iframe of the embed page, 640 wide", frame)
	}
	if h, _ := got["height"].(float64); h < 400 {
		t.Errorf("oEmbed height = %v, want the page's height", got["height"])
	}
	for target, status := range map[string]int{
		"/oembed?url=" + url.QueryEscape("https://other.example/r/"+id):       http.StatusNotFound,
		"/oembed?url=" + url.QueryEscape(testBase+"/lab"):                     http.StatusNotFound,
		"/oembed?url=" + url.QueryEscape(testBase+"/r/AAAAAAAAAAAAAAAA"):      http.StatusNotFound,
		"/oembed?format=xml&url=" + url.QueryEscape(link):                     http.StatusNotImplemented,
		"/oembed?maxwidth=319&url=" + url.QueryEscape(link):                   http.StatusNotFound,
		"/oembed?maxwidth=320&url=" + url.QueryEscape(link):                   http.StatusOK,
		"/oembed?url=" + url.QueryEscape(testBase+"/scenarios/paused-worker"): http.StatusOK,
	} {
		if rec := get(t, s, target); rec.Code != status {
			t.Errorf("GET %s = %d, want %d: %s", target, rec.Code, status, rec.Body)
		}
	}
}

func TestIconsAndManifest(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	ico := get(t, s, "/favicon.ico")
	checkResponse(t, "GET /favicon.ico", ico, http.StatusOK, "image/vnd.microsoft.icon")
	if b := ico.Body.Bytes(); len(b) < 6 || !bytes.Equal(b[:4], []byte{0, 0, 1, 0}) || b[4] != 3 {
		t.Errorf("GET /favicon.ico: header % x, want an ICO of three images", b[:min(6, len(b))])
	}
	svg := get(t, s, "/icon.svg")
	checkResponse(t, "GET /icon.svg", svg, http.StatusOK, "image/svg+xml")
	if err := xml.Unmarshal(svg.Body.Bytes(), new(struct{ XMLName xml.Name })); err != nil {
		t.Errorf("GET /icon.svg is not XML: %v", err)
	}
	man := get(t, s, "/manifest.webmanifest")
	checkResponse(t, "GET /manifest.webmanifest", man, http.StatusOK, "application/manifest+json")
	var m struct {
		Name  string
		Icons []struct{ Src, Sizes string }
	}
	if err := json.Unmarshal(man.Body.Bytes(), &m); err != nil || m.Name != "fencelab" || len(m.Icons) < 3 {
		t.Fatalf("manifest = %+v (%v), want the name and three icons", m, err)
	}
	for _, icon := range m.Icons {
		rec := get(t, s, icon.Src)
		if rec.Code != http.StatusOK {
			t.Errorf("manifest icon %s = %d", icon.Src, rec.Code)
			continue
		}
		if strings.HasSuffix(icon.Src, ".png") {
			img, err := png.Decode(io.Reader(rec.Body))
			if err != nil || icon.Sizes != itoaSize(img.Bounds().Dx()) {
				t.Errorf("manifest icon %s: %v, size %v, want %s", icon.Src, err, img.Bounds(), icon.Sizes)
			}
		}
	}
}

func itoaSize(n int) string { return strconv.Itoa(n) + "x" + strconv.Itoa(n) }

// BenchmarkRunPNG is GET /r/{id}.png through the whole handler once the
// picture is drawn: a saved run's picture never changes, so it is kept.
// The drawing itself is views/diagram's BenchmarkDiagramPNG.
func BenchmarkRunPNG(b *testing.B) {
	h := newTestServer(b)
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/api/runs", strings.NewReader(builtinSource(b, "paused-worker")))
	req.Header.Set("Content-Type", "application/json")
	h.ServeHTTP(rec, req)
	var saved struct{ ID string }
	if err := json.Unmarshal(rec.Body.Bytes(), &saved); err != nil || saved.ID == "" {
		b.Fatalf("save: %d %s", rec.Code, rec.Body.String())
	}
	serve(b, h, func() *http.Request { return httptest.NewRequest(http.MethodGet, "/r/"+saved.ID+".png", nil) }, http.StatusOK)
}

// TestCardPairOneRule: a card compares the first two policies of the
// table, in the table's order whatever the URL's, the order the page
// cache keys on: two servers, each asked one spelling first, draw one
// card.
func TestCardPairOneRule(t *testing.T) {
	t.Parallel()
	a := get(t, newTestServer(t), "/scenarios/paused-worker.png?p=fenced&p=unfenced")
	b := get(t, newTestServer(t), "/scenarios/paused-worker.png?p=unfenced&p=fenced")
	if a.Code != http.StatusOK || b.Code != http.StatusOK {
		t.Fatalf("GET the two cards = %d, %d; want 200", a.Code, b.Code)
	}
	if !bytes.Equal(a.Body.Bytes(), b.Body.Bytes()) {
		t.Errorf("?p=fenced&p=unfenced and ?p=unfenced&p=fenced draw different cards, though the page cache takes them for one")
	}
}
