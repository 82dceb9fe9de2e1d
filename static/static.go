// Package static holds the stylesheets, scripts and vendored front-end
// libraries that the server serves, embedded so the binary needs no files
// beside it and no CDN.
package static

import "embed"

// FS holds css/, js/ and vendor/ under those names, ready for
// http.FS or echo's StaticFS.
//
//go:embed css js vendor
var FS embed.FS
