package views

import (
	"net/url"
	"strings"

	"fencelab/lab"
)

// The lab's own links are built here: names and ids are escaped for their
// part of the URL and queries are joined, never spliced, so a link never
// needs templ.SafeURL (which would skip templ's URL sanitising).

// ScenarioPath is the page of the built-in called name.
func ScenarioPath(name string) string { return "/scenarios/" + url.PathEscape(name) }

// RunPath is the page of the saved run id.
func RunPath(id string) string { return "/r/" + url.PathEscape(id) }

// JoinPath is the page a student opens to join the live room code.
func JoinPath(code string) string { return "/join/" + url.PathEscape(code) }

// Link is path with the query from=FROM (left out when from is "") and
// p=POLICY for each policy, in that order. A "/" in from stays as it is
// ("from=r/ID"), as in every link the lab has handed out.
func Link(path, from string, policies []lab.Policy) string {
	var q []string
	if from != "" {
		q = append(q, "from="+strings.ReplaceAll(url.QueryEscape(from), "%2F", "/"))
	}
	for _, p := range policies {
		q = append(q, "p="+url.QueryEscape(string(p)))
	}
	if len(q) == 0 {
		return path
	}
	return path + "?" + strings.Join(q, "&")
}

// Fragment is the link to the element id on the same page.
func Fragment(id string) string { return "#" + url.PathEscape(id) }
