package server

import (
	"net/url"
	"slices"

	"github.com/labstack/echo/v4"

	"fencelab/lab"
	"fencelab/views"
	"fencelab/views/diagram"
)

// pageQuery is what a request asks a page to show: the policies of the
// table (?p=), the policy of the diagram (?d=) and, from those, the pair a
// card compares and the link that keeps the choice. Every page, export
// and picture reads it through s.query (a form through queryOf), under
// the one rule below, so that a page, its card, its Markdown, its embed
// and the page cache's key agree.
type pageQuery struct {
	// Policies are the table's: the policies ?p= names, in the order of
	// lab.Policies whatever the URL's order; the default when it names
	// none.
	Policies []lab.Policy
	// Diagram is the diagram's: ?d= when it names a policy, else the
	// default for Policies (views.DiagramPolicy).
	Diagram lab.Policy
	// Asked reports whether the request had a ?p= at all: a saved probe's
	// page shows the receiver's claimed policy only when it had none.
	Asked bool
	// Unknown are the names in ?p= and ?d= that name no policy, each
	// once, the first maxUnknown of them: the page says it left them out,
	// and is not cached. UnknownMore counts the others.
	Unknown     []string
	UnknownMore int
	// Theme is ?theme= as asked, an embed's light or dark (embedTheme
	// refuses any other).
	Theme string
	// named reports whether ?p= named a policy (else Policies are the
	// default); d is ?d= as asked, kept when the policies change.
	named bool
	d     string
}

// defaultPolicies are compared when the reader chose none.
var defaultPolicies = lab.DefaultPolicies()

// maxUnknown is how many unknown policy names a page quotes back: a URL
// of thousands of junk names gets a notice of a line, not of the whole
// URL, and reading them stays linear.
const maxUnknown = 10

// embedPolicies is how many of a page's policies its embed shows, so that
// the table fits a frame.
const embedPolicies = 2

// queryKey holds a request's pageQuery once read.
const queryKey = "fencelab.pageQuery"

// query is the page query of c's URL, read once per request.
func (s *Server) query(c echo.Context) pageQuery {
	if q, ok := c.Get(queryKey).(pageQuery); ok {
		return q
	}
	q := queryOf(c.QueryParams())
	c.Set(queryKey, q)
	return q
}

// queryOf reads the p and d fields of a query or a posted form.
func queryOf(v url.Values) pageQuery {
	names, asked := v["p"]
	q := pageQuery{Asked: asked, d: v.Get("d"), Theme: v.Get("theme")}
	for _, p := range lab.Policies() {
		if slices.Contains(names, string(p)) {
			q.Policies = append(q.Policies, p)
		}
	}
	q.named = len(q.Policies) > 0
	if !q.named {
		q.Policies = slices.Clone(defaultPolicies)
	}
	seen := map[string]bool{}
	for _, n := range append(slices.Clone(names), q.d) {
		if n == "" || lab.PolicyIndex(lab.Policy(n)) >= 0 || seen[n] {
			continue
		}
		seen[n] = true
		if len(q.Unknown) < maxUnknown {
			q.Unknown = append(q.Unknown, n)
		} else {
			q.UnknownMore++
		}
	}
	q.Diagram = views.DiagramPolicy(q.Policies, q.d)
	return q
}

// withPolicies is q showing ps instead (a saved probe's claimed policy, a
// room's choice), the diagram's default following them unless ?d= named
// a policy.
func (q pageQuery) withPolicies(ps []lab.Policy) pageQuery {
	q.Policies = ps
	q.Diagram = views.DiagramPolicy(ps, q.d)
	return q
}

// embed is q as the embed of the page shows it: its first embedPolicies
// policies, and the page's diagram.
func (q pageQuery) embed() pageQuery {
	q.Policies = q.Policies[:min(embedPolicies, len(q.Policies))]
	return q
}

// pair is the two policies a card of tr compares: the first two of the
// table when ?p= names two or more, else the failure and the first fix
// among the table's (diagram.ComparePolicies).
func (q pageQuery) pair(tr *lab.Trace) (a, b lab.Policy) {
	if q.named && len(q.Policies) >= 2 {
		return q.Policies[0], q.Policies[1]
	}
	return diagram.ComparePolicies(tr, q.Policies)
}

// kept is the choice a link keeps: none for the default.
func (q pageQuery) kept() []lab.Policy {
	if slices.Equal(q.Policies, defaultPolicies) {
		return nil
	}
	return q.Policies
}

// link is the page at path with q's choice: ?p= unless it is the
// default, ?d= unless it is the default for the policies.
func (q pageQuery) link(path string) string {
	v := url.Values{}
	if kept := q.kept(); kept != nil {
		v["p"] = policyNames(kept)
	}
	if q.Diagram != views.DiagramPolicy(q.Policies, "") {
		v.Set("d", string(q.Diagram))
	}
	if len(v) == 0 {
		return path
	}
	return path + "?" + v.Encode()
}

// cacheKey is the part of the page cache's key that q decides: two
// requests with one key show the same page.
func (q pageQuery) cacheKey() string {
	var key string
	if lab.PolicyIndex(lab.Policy(q.d)) >= 0 {
		key = "&d=" + q.d
	}
	if q.Asked {
		key += "&p="
		if q.named {
			for _, p := range q.Policies {
				key += string(p) + ","
			}
		}
	}
	switch q.Theme {
	case "":
	case views.ThemeLight, views.ThemeDark:
		key += "&theme=" + q.Theme
	default:
		key += "&theme=?" // refused by the embed, never kept
	}
	return key
}
