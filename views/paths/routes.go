// Package paths holds the lab's routes and builds its links: the pages,
// the server, the CLI and the probe import it without templ or Echo.
package paths

// The route patterns of the lab, as Echo registers them. server/routes.go
// registers from these; a route without parameters is its own link, and
// the builders in paths.go fill in the others and add the queries, so a
// link and the route it names cannot drift apart. A test in server walks
// the registered routes and fails on one that takes parameters or a query
// and has no builder.
const (
	RouteHome            = "/"
	RouteScenario        = "/scenarios/:name" // the page, and its .png
	RouteScenarioPresent = "/scenarios/:name/present"
	RouteScenarioEmbed   = "/scenarios/:name/embed"
	RouteReplay          = "/replay"
	RouteRuns            = "/runs"
	RouteRun             = "/r/:id" // the page, and its .md, .json, .svg, .png
	RouteRunPresent      = "/r/:id/present"
	RouteRunEmbed        = "/r/:id/embed"
	RouteOEmbed          = "/oembed"
	RouteEditor          = "/lab"
	RouteEditorPreview   = "/lab/preview"
	RouteEditorSave      = "/lab/save"
	RouteEditorExplore   = "/lab/explore"
	RouteRooms           = "/rooms"
	RouteRoom            = "/rooms/:id"
	RouteRoomEvents      = "/rooms/:id/events"
	RouteRoomStep        = "/rooms/:id/step"
	RouteRoomReveal      = "/rooms/:id/reveal"
	RouteRoomEnd         = "/rooms/:id/end"
	RouteRoomOptions     = "/rooms/:id/options"
	RouteRoomHandover    = "/rooms/:id/handover"
	RouteRoomTake        = "/rooms/:id/take"
	RouteRoomCSV         = "/rooms/:id/results.csv"
	RouteJoinForm        = "/join"
	RouteJoin            = "/join/:code"
	RouteJoinEvents      = "/join/:code/events"
	RouteJoinAnswer      = "/join/:code/answer"
	RouteExplore         = "/explore"
	RouteExploreEdit     = "/explore/edit"
	RouteImport          = "/import"
	RouteImportPreview   = "/import/preview"
	RouteExploreCard     = "/explore.png"
	RouteCompare         = "/compare"
	RouteCompareMarkdown = "/compare.md"
	RouteAPIReplay       = "/api/replay"
	RouteAPIRuns         = "/api/runs"
	RouteAPIRun          = "/api/runs/:id"
	RouteAPIProbes       = "/api/probes"
	RouteAPIImports      = "/api/imports"
	RouteAPIExplore      = "/api/explore"
	RouteAPIScenarios    = "/api/scenarios"
	RouteAPIScenario     = "/api/scenarios/:name"
	RouteHealthz         = "/healthz"
	RouteReadyz          = "/readyz"
	RouteStatic          = "/static/*" // static.Prefix, which TestStaticRoute checks
	RouteFavicon         = "/favicon.ico"
	RouteIconSVG         = "/icon.svg"
	RouteIcon192         = "/icon-192.png"
	RouteIcon512         = "/icon-512.png"
	RouteAppleTouchIcon  = "/apple-touch-icon.png"
	RouteManifest        = "/manifest.webmanifest"
)

// APIPrefix starts every path of the JSON API, whose errors are JSON too.
const APIPrefix = "/api/"
