package server_test

import (
	"net/http/httptest"
	"testing"

	"fencelab/lab"
	"fencelab/server"
	"fencelab/views"

	"github.com/labstack/echo/v4"
)

// builders is, for each route pattern, what its builders in views make of
// sample parameters, some of which need escaping. A route registered
// without an entry here has no builder.
var builders = map[string][]string{
	views.RouteHome:            {views.HomePath()},
	views.RouteScenario:        {views.ScenarioPath("paused-worker"), views.ScenarioPath("a b?c/d"), views.ScenarioPNGPath("paused-worker")},
	views.RouteScenarioPresent: {views.ScenarioPresentPath("paused-worker"), views.PresentPathOf(views.ScenarioPath("x"))},
	views.RouteScenarioEmbed:   {views.ScenarioEmbedPath("a b"), views.EmbedPathOf(views.ScenarioPath("x"))},
	views.RouteReplay:          {views.ReplayPath()},
	views.RouteRuns:            {views.RunsPath()},
	views.RouteRun: {views.RunPath("AbC123"), views.RunPath("a/b?c"), views.RunMarkdownPath("x"), views.RunJSONPath("x"),
		views.RunSVGPath("x"), views.RunPNGPath("x"), views.RunFullPNGPath("x", lab.Fenced), views.PicturePathOf(views.RunPath("x"))},
	views.RouteRunPresent:      {views.RunPresentPath("x"), views.PresentPathOf(views.RunPath("x"))},
	views.RouteRunEmbed:        {views.RunEmbedPath("x"), views.EmbedPathOf(views.RunPath("x"))},
	views.RouteOEmbed:          {views.OEmbedPath("https://lab.example/r/x?p=fenced")},
	views.RouteEditor:          {views.EditorPath(), views.Link(views.EditorPath(), views.RunFrom("x"), []lab.Policy{lab.Fenced})},
	views.RouteEditorPreview:   {views.EditorPreviewPath()},
	views.RouteEditorSave:      {views.EditorSavePath()},
	views.RouteEditorExplore:   {views.EditorExplorePath()},
	views.RouteRooms:           {views.RoomsPath()},
	views.RouteRoom:            {views.RoomPath("r1")},
	views.RouteRoomEvents:      {views.RoomEventsPath("r1")},
	views.RouteRoomStep:        {views.RoomStepPath("r1")},
	views.RouteRoomReveal:      {views.RoomRevealPath("r1")},
	views.RouteRoomEnd:         {views.RoomEndPath("r1")},
	views.RouteRoomOptions:     {views.RoomOptionsPath("r1")},
	views.RouteRoomHandover:    {views.RoomHandoverPath("r1")},
	views.RouteRoomTake:        {views.RoomTakePath("r1")},
	views.RouteRoomCSV:         {views.RoomCSVPath("r1")},
	views.RouteJoinForm:        {views.JoinFormPath()},
	views.RouteJoin:            {views.JoinPath("K7Q"), views.JoinPath("K/7?Q")},
	views.RouteJoinEvents:      {views.JoinEventsPath("K7Q")},
	views.RouteJoinAnswer:      {views.JoinAnswerPath("K7Q")},
	views.RouteExplore:         {views.ExplorePath(), views.Link(views.ExplorePath(), "paused-worker", nil)},
	views.RouteExploreCard:     {views.ExploreCardPath("paused-worker")},
	views.RouteExploreEdit:     {views.ExploreEditPath()},
	views.RouteCompare:         {views.ComparePath("", ""), views.ComparePath("paused-worker", "r/x")},
	views.RouteCompareMarkdown: {views.CompareMarkdownPath("paused-worker", "old-token-first")},
	views.RouteImport:          {views.ImportPath()},
	views.RouteImportPreview:   {views.ImportPreviewPath()},
	views.RouteAPIReplay:       {views.APIReplayPath()},
	views.RouteAPIRuns:         {views.APIRunsPath()},
	views.RouteAPIRun:          {views.APIRunPath("x")},
	views.RouteAPIProbes:       {views.APIProbesPath()},
	views.RouteAPIImports:      {views.APIImportsPath()},
	views.RouteAPIExplore:      {views.APIExplorePath()},
	views.RouteAPIScenarios:    {views.APIScenariosPath()},
	views.RouteAPIScenario:     {views.APIScenarioPath("paused-worker")},
	views.RouteHealthz:         {views.HealthzPath()},
	views.RouteReadyz:          {views.ReadyzPath()},
	views.RouteStatic:          {views.StaticPath("css/site.css"), views.StaticPath("js/site.js")},
	views.RouteFavicon:         {views.FaviconPath()},
	views.RouteIconSVG:         {views.IconSVGPath()},
	views.RouteIcon192:         {views.Icon192Path()},
	views.RouteIcon512:         {views.Icon512Path()},
	views.RouteAppleTouchIcon:  {views.AppleTouchIconPath()},
	views.RouteManifest:        {views.ManifestPath()},
}

// TestRoutesHaveBuilders walks the routes the server registered: each
// must have a builder, and what each builder makes must be routed back to
// its pattern, so a link can neither miss its route nor reach another.
func TestRoutesHaveBuilders(t *testing.T) {
	t.Parallel()
	routes := newServer(t, failingStore{}, testSecret, nil).Routes()
	e := router(routes)
	registered := map[string]bool{}
	for _, r := range routes {
		registered[r.Path] = true
		links, ok := builders[r.Path]
		if !ok {
			t.Errorf("route %s %s has no builder in views/paths.go", r.Method, r.Path)
			continue
		}
		for _, link := range links {
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
