package server_test

import (
	"bytes"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fencelab/lab"
	"fencelab/views/htmltest"

	"golang.org/x/net/html"
)

// TestPreviewKeepsTheQuery reads the link-preview tags of pages whose
// query chose what they show: the canonical address, og:url and the
// picture keep that query, so an unfurler shows what the link shows.
func TestPreviewKeepsTheQuery(t *testing.T) {
	t.Parallel()
	s := newSharingServer(t)
	id := saveRun(t, s, "paused-worker")
	run, scenario := testBase+"/r/"+id, testBase+"/scenarios/paused-worker"
	tests := []struct {
		target, page, picture string
	}{
		{"/r/" + id, run, run + ".png"},
		{"/r/" + id + "?d=unfenced", run + "?d=unfenced", run + ".png?d=unfenced"},
		{"/r/" + id + "?p=unfenced&p=cas", run + "?p=unfenced&p=cas", run + ".png?p=unfenced&p=cas"},
		{"/r/" + id + "?p=unfenced&p=fenced&d=unfenced", run + "?d=unfenced", run + ".png?d=unfenced"},
		{"/scenarios/paused-worker?d=unfenced", scenario + "?d=unfenced", scenario + ".png?d=unfenced"},
	}
	for _, tt := range tests {
		tags := metaTags(t, get(t, s, tt.target).Body.Bytes())
		for _, k := range []string{"og:url", "link canonical"} {
			if tags[k] != tt.page {
				t.Errorf("GET %s: %s = %q, want %q", tt.target, k, tags[k], tt.page)
			}
		}
		for _, k := range []string{"og:image", "twitter:image"} {
			if tags[k] != tt.picture {
				t.Errorf("GET %s: %s = %q, want %q", tt.target, k, tags[k], tt.picture)
			}
		}
		if want := testBase + "/oembed?format=json&url=" + url.QueryEscape(tt.page); tags["link alternate application/json+oembed"] != want {
			t.Errorf("GET %s: oEmbed link = %q, want %q", tt.target, tags["link alternate application/json+oembed"], want)
		}
		if rec := get(t, s, strings.TrimPrefix(tt.picture, testBase)); rec.Code != 200 {
			t.Errorf("GET %s = %d, want 200", tt.picture, rec.Code)
		}
	}
}

// TestExplorePreviewSaysThePage checks that an exploration's description
// gives each default policy's worst class in the words of the page's
// chart, and nothing the chart does not say.
func TestExplorePreviewSaysThePage(t *testing.T) {
	t.Parallel()
	s := newSharingServer(t)
	var lastCard []byte
	for _, from := range []string{"paused-worker", "old-token-first"} {
		target := "/explore?from=" + from
		body := get(t, s, target).Body.Bytes()
		tags := metaTags(t, body)
		p := parsePage(t, body)
		var want []string
		for _, row := range htmltest.FindAll(p.root, func(n *html.Node) bool { return htmltest.HasClass(n, "x-bar-row") }) {
			policy := htmltest.Find(row, func(n *html.Node) bool { return htmltest.HasClass(n, "policy-name") })
			verdict := htmltest.Find(row, func(n *html.Node) bool { return htmltest.HasClass(n, "x-verdict") })
			if policy == nil || verdict == nil {
				t.Fatalf("GET %s: a bar without its policy or verdict", target)
			}
			words := htmltest.Text(verdict)
			if glyph := htmltest.Find(verdict, func(n *html.Node) bool { return htmltest.HasClass(n, "cls-glyph") }); glyph != nil {
				words = strings.TrimSpace(strings.TrimPrefix(words, htmltest.Text(glyph)))
			}
			if name := htmltest.Text(policy); slices.Contains(lab.DefaultPolicies(), lab.Policy(name)) {
				want = append(want, name+": "+words)
			}
		}
		if got := strings.Join(want, " · "); len(want) < 2 || tags["og:description"] != got {
			t.Errorf("GET %s: og:description = %q, want the chart's own verdicts %q", target, tags["og:description"], got)
		}
		picture := strings.TrimPrefix(tags["og:image"], testBase)
		if rec := get(t, s, picture); rec.Code != 200 || rec.Header().Get("Content-Type") != "image/png" {
			t.Errorf("GET %s (the explore page's picture) = %d %s, want a PNG", picture, rec.Code, rec.Header().Get("Content-Type"))
		} else if saveArtefact(t, "explore-card-"+from+".png", rec.Body.Bytes()); bytes.Equal(rec.Body.Bytes(), lastCard) {
			t.Errorf("GET %s: the same picture as the previous exploration's", picture)
		} else {
			lastCard = rec.Body.Bytes()
		}
		if !strings.HasSuffix(tags["og:image:alt"], tags["og:description"]) {
			t.Errorf("GET %s: og:image:alt = %q, want the bars in the description's words", target, tags["og:image:alt"])
		}
		if tags["twitter:description"] != tags["og:description"] {
			t.Errorf("GET %s: twitter:description = %q, want og:description", target, tags["twitter:description"])
		}
	}
}

// saveArtefact keeps a picture a test made where the browser tests keep
// their screenshots, when FENCELAB_ARTEFACTS names a directory.
func saveArtefact(t *testing.T, name string, b []byte) {
	t.Helper()
	if dir := os.Getenv("FENCELAB_ARTEFACTS"); dir != "" {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Errorf("keep %s: %v", name, err)
		}
	}
}
