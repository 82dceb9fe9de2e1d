package server_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"fencelab/lab"
	"fencelab/server"
	"fencelab/static"
	"fencelab/views/paths"

	"github.com/labstack/echo/v4"
)

// builders is, for each route that takes parameters or a query, what its
// builders in views/paths make of sample parameters, some of which need
// escaping. Every other route is its own link: its pattern.
var builders = map[string][]string{
	paths.RouteScenario: {paths.ScenarioPath("paused-worker"), paths.ScenarioPath("a b?c/d"), paths.ScenarioPNGPath("paused-worker"),
		paths.Link(paths.ScenarioPath("x"), "", []lab.Policy{lab.Fenced})},
	paths.RouteScenarioPresent: {paths.PresentPathOf(paths.ScenarioPath("paused-worker")), paths.PresentPathOf(paths.ScenarioPath("x"))},
	paths.RouteScenarioEmbed:   {paths.EmbedPathOf(paths.ScenarioPath("a b")), paths.EmbedPathOf(paths.ScenarioPath("x"))},
	paths.RouteRun: {paths.RunPath("AbC123"), paths.RunPath("a/b?c"), paths.RunMarkdownPath("x"), paths.RunJSONPath("x"),
		paths.RunSVGPath("x"), paths.RunPNGPath("x"), paths.RunFullPNGPath("x", lab.Fenced), paths.PicturePathOf(paths.RunPath("x")),
		paths.Link(paths.RunPath("x"), "", []lab.Policy{lab.Fenced})},
	paths.RouteRunPresent:      {paths.PresentPathOf(paths.RunPath("x")), paths.PresentPathOf(paths.RunPath("a/b"))},
	paths.RouteRunEmbed:        {paths.RunEmbedPath("x"), paths.EmbedPathOf(paths.RunPath("x"))},
	paths.RouteOEmbed:          {paths.OEmbedPath("https://lab.example/r/x?p=fenced")},
	paths.RouteEditor:          {paths.Link(paths.RouteEditor, paths.RunFrom("x"), []lab.Policy{lab.Fenced})},
	paths.RouteRoom:            {paths.RoomPath("r1")},
	paths.RouteRoomEvents:      {paths.RoomEventsPath("r1")},
	paths.RouteRoomStep:        {paths.RoomStepPath("r1")},
	paths.RouteRoomReveal:      {paths.RoomRevealPath("r1")},
	paths.RouteRoomEnd:         {paths.RoomEndPath("r1")},
	paths.RouteRoomOptions:     {paths.RoomOptionsPath("r1")},
	paths.RouteRoomHandover:    {paths.RoomHandoverPath("r1")},
	paths.RouteRoomTake:        {paths.RoomTakePath("r1")},
	paths.RouteRoomCSV:         {paths.RoomCSVPath("r1")},
	paths.RouteJoin:            {paths.JoinPath("K7Q"), paths.JoinPath("K/7?Q")},
	paths.RouteJoinEvents:      {paths.JoinEventsPath("K7Q")},
	paths.RouteJoinAnswer:      {paths.JoinAnswerPath("K7Q")},
	paths.RouteExplore:         {paths.Link(paths.RouteExplore, "paused-worker", nil)},
	paths.RouteExploreCard:     {paths.ExploreCardPath("paused-worker")},
	paths.RouteCompare:         {paths.ComparePath("", ""), paths.ComparePath("paused-worker", paths.RunFrom("x"))},
	paths.RouteCompareMarkdown: {paths.CompareMarkdownPath("paused-worker", "old-token-first")},
	paths.RouteAPIRun:          {paths.APIRunPath("x")},
	paths.RouteAPIScenario:     {paths.APIScenarioPath("paused-worker")},
	paths.RouteStatic:          {static.URL("css/site.css"), static.URL("js/site.js")},
}

// queried are the routes the lab links to with a query (?p=, ?from=,
// ?a=&b=, ?url=): the builders add it, so each needs one.
var queried = []string{paths.RouteScenario, paths.RouteRun, paths.RouteOEmbed, paths.RouteEditor, paths.RouteExplore,
	paths.RouteExploreCard, paths.RouteCompare, paths.RouteCompareMarkdown}

// TestRoutesHaveBuilders walks the routes the server registered: each is
// a pattern of views/paths/routes.go and each pattern is registered; each
// route that takes parameters or a query must have a builder, each other
// is its own link; and every link must be routed back to its pattern, so
// a link can neither miss its route nor reach another.
func TestRoutesHaveBuilders(t *testing.T) {
	t.Parallel()
	routes := newServer(t, failingStore{}, testSecret, nil).Routes()
	e := router(routes)
	registered, patterns := map[string]bool{}, routePatterns(t)
	for _, r := range routes {
		registered[r.Path] = true
		if !patterns[r.Path] {
			t.Errorf("route %s %s is registered without its constant in views/paths/routes.go", r.Method, r.Path)
		}
		for _, link := range linksOf(t, r) {
			if got := routeOf(e, r.Method, link); got != r.Path {
				t.Errorf("%s %q is routed to %q, want %q", r.Method, link, got, r.Path)
			}
		}
	}
	for pattern := range builders {
		if !registered[pattern] {
			t.Errorf("builders has %q, which no route registers", pattern)
		}
	}
	for pattern := range patterns {
		if !registered[pattern] {
			t.Errorf("views/paths/routes.go has the pattern %q, which no route registers", pattern)
		}
	}
}

// routePatterns are the values of the Route constants of
// views/paths/routes.go, read from its source.
func routePatterns(t *testing.T) map[string]bool {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join("..", "views", "paths", "routes.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.CONST {
			for _, spec := range g.Specs {
				v := spec.(*ast.ValueSpec)
				if !strings.HasPrefix(v.Names[0].Name, "Route") {
					continue
				}
				lit, ok := v.Values[0].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					t.Fatalf("views/paths/routes.go: %s is not spelled as one string", v.Names[0].Name)
				}
				p, _ := strconv.Unquote(lit.Value)
				out[p] = true
			}
		}
	}
	if len(out) == 0 {
		t.Fatal("views/paths/routes.go: no Route constant found")
	}
	return out
}

// linksOf is what the builders make for route r, or r's pattern when it
// takes neither parameters nor a query; it fails on a route that takes
// either and has no builder, and on a builder for one that takes neither.
func linksOf(t *testing.T, r server.Route) []string {
	t.Helper()
	params, query := strings.ContainsAny(r.Path, ":*"), slices.Contains(queried, r.Path)
	links, ok := builders[r.Path]
	switch {
	case !ok && (params || query):
		t.Errorf("route %s %s takes parameters or a query and has no builder in views/paths", r.Method, r.Path)
	case !ok:
		return []string{r.Path}
	case !params && !query:
		t.Errorf("route %s %s takes no parameters and no query, so its pattern is its link; builders has %q", r.Method, r.Path, links)
	case query && !slices.ContainsFunc(links, func(l string) bool { return strings.Contains(l, "?") }):
		t.Errorf("route %s %s takes a query, and no link in builders has one: %q", r.Method, r.Path, links)
	}
	return links
}

// router is an Echo router holding the server's routes, in their order:
// the same router finds the same route for a link as the server's does.
func router(routes []server.Route) *echo.Echo {
	e := echo.New()
	for _, r := range routes {
		e.Add(r.Method, r.Path, func(echo.Context) error { return nil })
	}
	return e
}

// routeOf is the pattern of the route that Echo's router finds for a
// request of method to link, as a browser would send it.
func routeOf(e *echo.Echo, method, link string) string {
	req := httptest.NewRequest(method, link, nil)
	c := e.NewContext(req, httptest.NewRecorder())
	e.Router().Find(method, echo.GetPath(req), c)
	return c.Path()
}
