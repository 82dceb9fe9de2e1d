// Package diagram draws the space-time diagram of a replayed scenario: one
// lane per actor, the lease service and each resource, one band per step.
//
// The layout is plain Go (grid.go and the files it calls) and produces a
// display list of lanes, bands and shapes in SVG user units. Two renderers
// draw that one list: svg.go writes it as SVG, and png.go with raster*.go
// paints it as a PNG for the places that take no SVG (link previews,
// documents). The raster code stays in this package rather than a
// subpackage because it draws the unexported display list: splitting it
// off would make every shape's fields public API for one caller.
//
// Colours, widths and fonts are presentation attributes, which a strict
// Content-Security-Policy allows and a standalone .svg file keeps; classes
// only carry hover, print and test hooks (static/css/diagram.css).
//
// The package knows no templ and no web framework: the pages (package
// views) wrap Inline in a component, the server and the CLI write SVG and
// PNG directly. Which deliver settled each request is the engine's rule
// (lab.Requests), read here, not worked out again.
package diagram
