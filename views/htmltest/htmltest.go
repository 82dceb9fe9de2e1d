// Package htmltest reads rendered pages for the tests of views and
// server: it finds elements in a parsed document and gives their
// attributes and their text as a reader sees it. Only tests import it.
package htmltest

import (
	"strings"

	"golang.org/x/net/html"
)

// Find returns the first element under n, n included, for which match is
// true, or nil.
func Find(n *html.Node, match func(*html.Node) bool) *html.Node {
	if n.Type == html.ElementNode && match(n) {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if m := Find(c, match); m != nil {
			return m
		}
	}
	return nil
}

// FindAll returns every element under n, n included, for which match is
// true, in document order.
func FindAll(n *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	if n.Type == html.ElementNode && match(n) {
		out = append(out, n)
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		out = append(out, FindAll(c, match)...)
	}
	return out
}

// Attr is the value of n's attribute key, or "" without one.
func Attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// HasClass reports whether n (which may be nil) has class among its classes.
func HasClass(n *html.Node, class string) bool {
	if n == nil {
		return false
	}
	for _, c := range strings.Fields(Attr(n, "class")) {
		if c == class {
			return true
		}
	}
	return false
}

// blocks are the elements that a browser sets apart from their neighbours.
var blocks = map[string]bool{"p": true, "div": true, "dt": true, "dd": true, "li": true, "h1": true,
	"h2": true, "h3": true, "td": true, "th": true, "ul": true, "dl": true, "article": true, "section": true}

// Text is the text content of n as a reader sees it: white space
// collapsed, and block elements set apart from their neighbours.
func Text(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		block := n.Type == html.ElementNode && blocks[n.Data]
		if block {
			b.WriteByte(' ')
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
		if block {
			b.WriteByte(' ')
		}
	}
	walk(n)
	return strings.Join(strings.Fields(b.String()), " ")
}
