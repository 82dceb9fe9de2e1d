package docs

import "embed"

// Import holds the walkthrough of import.md, import/: the logs of one
// incident and their mapping, which the import page offers as "try the
// example logs".
//
//go:embed import
var Import embed.FS
