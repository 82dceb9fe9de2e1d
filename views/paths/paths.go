package paths

import (
	"net/url"
	"strings"

	"fencelab/lab"
)

// The lab's own links are built here: names and ids are escaped for their
// part of the URL and queries are joined, never spliced, so a link never
// needs templ.SafeURL (which would skip templ's URL sanitising). Each
// builder fills in its route's pattern from routes.go or adds its query;
// a route that takes neither has no builder, its pattern is its link.

// fill is pattern with each ":param" segment replaced, in order, by the
// next of args escaped as one path segment.
func fill(pattern string, args ...string) string {
	segs := strings.Split(pattern, "/")
	for i, s := range segs {
		if strings.HasPrefix(s, ":") && len(args) > 0 {
			segs[i], args = url.PathEscape(args[0]), args[1:]
		}
	}
	return strings.Join(segs, "/")
}

// ScenarioPath is the page of the built-in called name.
func ScenarioPath(name string) string { return fill(RouteScenario, name) }

// ScenarioPNGPath is the link-preview card of the built-in called name.
func ScenarioPNGPath(name string) string { return ScenarioPath(name) + ".png" }

// ScenarioMarkdownPath is the Markdown export of the built-in called name.
func ScenarioMarkdownPath(name string) string { return ScenarioPath(name) + ".md" }

// ScenarioSVGPath is the diagram of the built-in called name, as a file.
func ScenarioSVGPath(name string) string { return ScenarioPath(name) + ".svg" }

// RunPath is the page of the saved run id.
func RunPath(id string) string { return fill(RouteRun, id) }

// RunMarkdownPath is the Markdown export of the saved run id.
func RunMarkdownPath(id string) string { return RunPath(id) + ".md" }

// RunJSONPath is the JSON export of the saved run id.
func RunJSONPath(id string) string { return RunPath(id) + ".json" }

// RunSVGPath is the diagram of the saved run id as an SVG file.
func RunSVGPath(id string) string { return RunPath(id) + ".svg" }

// RunPNGPath is the diagram of the saved run id as a picture.
func RunPNGPath(id string) string { return RunPath(id) + ".png" }

// RunEmbedPath is the framable embed of the saved run id.
func RunEmbedPath(id string) string { return fill(RouteRunEmbed, id) }

// OEmbedPath is the oEmbed answer, in JSON, for the page at the full URL u.
func OEmbedPath(u string) string {
	return RouteOEmbed + "?" + url.Values{"format": {"json"}, "url": {u}}.Encode()
}

// RoomPath is the summary of the live room id.
func RoomPath(id string) string { return fill(RouteRoom, id) }

// RoomEventsPath streams the live room id to its presenter.
func RoomEventsPath(id string) string { return fill(RouteRoomEvents, id) }

// RoomStepPath moves the live room id to a step.
func RoomStepPath(id string) string { return fill(RouteRoomStep, id) }

// RoomRevealPath reveals a step's answer in the live room id.
func RoomRevealPath(id string) string { return fill(RouteRoomReveal, id) }

// RoomEndPath ends the live room id.
func RoomEndPath(id string) string { return fill(RouteRoomEnd, id) }

// RoomOptionsPath sets the presenter's choices for the live room id.
func RoomOptionsPath(id string) string { return fill(RouteRoomOptions, id) }

// RoomHandoverPath makes a one-time code that hands the live room id to another browser.
func RoomHandoverPath(id string) string { return fill(RouteRoomHandover, id) }

// RoomTakePath is where another browser spends a hand-over code of the live room id.
func RoomTakePath(id string) string { return fill(RouteRoomTake, id) }

// RoomCSVPath is the live room id's results, one row per student, for a spreadsheet.
func RoomCSVPath(id string) string { return fill(RouteRoomCSV, id) }

// JoinPath is the page a student opens to join the live room code.
func JoinPath(code string) string { return fill(RouteJoin, code) }

// JoinEventsPath streams the live room code to a student.
func JoinEventsPath(code string) string { return fill(RouteJoinEvents, code) }

// JoinAnswerPath takes a student's answer in the live room code.
func JoinAnswerPath(code string) string { return fill(RouteJoinAnswer, code) }

// ComparePath sets two runs side by side: a and b are each a built-in's
// name or "r/ID"; with both empty it is the form alone.
func ComparePath(a, b string) string { return compareLink(RouteCompare, a, b) }

// CompareMarkdownPath is the comparison of a and b in Markdown.
func CompareMarkdownPath(a, b string) string { return compareLink(RouteCompareMarkdown, a, b) }

func compareLink(path, a, b string) string {
	if a == "" && b == "" {
		return path
	}
	q := url.Values{"a": {a}, "b": {b}}
	return path + "?" + strings.ReplaceAll(q.Encode(), "%2F", "/")
}

// ExploreCardPath is the card of the exploration of from (a built-in's
// name or "r/ID").
func ExploreCardPath(from string) string { return Link(RouteExploreCard, from, nil) }

// APIRunPath is the saved run id as JSON.
func APIRunPath(id string) string { return fill(RouteAPIRun, id) }

// APIScenarioPath is the file of the built-in called name.
func APIScenarioPath(name string) string { return fill(RouteAPIScenario, name) }

// RunFullPNGPath is the full-size diagram of the saved run id under
// policy d, its query in the order the Markdown exports have always had.
func RunFullPNGPath(id string, d lab.Policy) string {
	return RunPNGPath(id) + "?size=full&d=" + url.QueryEscape(string(d))
}

// PicturePathOf is the link-preview card of page, the path of a
// built-in's page or a saved run's.
func PicturePathOf(page string) string { return page + ".png" }

// PresentPathOf is the presentation of page, the path of a built-in's
// page or a saved run's (what a room stores).
func PresentPathOf(page string) string { return page + "/present" }

// EmbedPathOf is the embed of page, the path of a built-in's page or a
// saved run's.
func EmbedPathOf(page string) string { return page + "/embed" }

// CutScenarioPath is the name in a built-in's page path, and whether
// page is one.
func CutScenarioPath(page string) (name string, ok bool) {
	return strings.CutPrefix(page, ScenarioPath(""))
}

// CutRunPath is the id in a saved run's page path, and whether page is one.
func CutRunPath(page string) (id string, ok bool) { return strings.CutPrefix(page, RunPath("")) }

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

// RunFrom is the from= of a link to a tool (the editor, the explorer)
// that opens the saved run id: "r/ID", unescaped, since Link escapes it
// as a query value.
func RunFrom(id string) string { return "r/" + id }

// CutRunFrom is the id in a from= naming a saved run ("r/ID"), and
// whether it names one; any other from= names a built-in.
func CutRunFrom(from string) (id string, ok bool) { return strings.CutPrefix(from, RunFrom("")) }

// FromPage is the page of what from names, a built-in's or a saved
// run's ("r/ID"); "" for an empty from, which names neither.
func FromPage(from string) string {
	if id, ok := CutRunFrom(from); ok {
		return RunPath(id)
	}
	if from == "" {
		return ""
	}
	return ScenarioPath(from)
}

// Fragment is the link to the element id on the same page.
func Fragment(id string) string { return "#" + url.PathEscape(id) }
