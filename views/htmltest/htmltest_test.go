package htmltest_test

import (
	"strings"
	"testing"

	"golang.org/x/net/html"

	"fencelab/views/htmltest"
)

func TestReadPage(t *testing.T) {
	doc, err := html.Parse(strings.NewReader(`<div id="a" class="x y"><p>one<b>two</b></p><p class="y">three</p><span>four</span></div>`))
	if err != nil {
		t.Fatal(err)
	}
	ys := htmltest.FindAll(doc, func(n *html.Node) bool { return htmltest.HasClass(n, "y") })
	if len(ys) != 2 || htmltest.Attr(ys[0], "id") != "a" || htmltest.Text(ys[1]) != "three" {
		t.Fatalf("FindAll(class y) = %d elements, want the div then the second p", len(ys))
	}
	if p := htmltest.Find(doc, func(n *html.Node) bool { return n.Data == "p" }); htmltest.Text(p) != "onetwo" {
		t.Errorf("Text(first p) = %q, want %q: inline elements run on", htmltest.Text(p), "onetwo")
	}
	if got, want := htmltest.Text(ys[0]), "onetwo three four"; got != want {
		t.Errorf("Text(div) = %q, want %q: blocks set apart", got, want)
	}
	if htmltest.HasClass(nil, "y") || htmltest.HasClass(ys[1], "x") || htmltest.Find(doc, func(*html.Node) bool { return false }) != nil {
		t.Errorf("HasClass(nil) or HasClass(p, x) true, or Find with no match not nil")
	}
}
