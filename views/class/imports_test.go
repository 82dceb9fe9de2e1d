package class_test

import (
	"testing"

	"fencelab/docs/imports"
)

// TestImports holds this package to its row of the import table in
// docs/code.md.
func TestImports(t *testing.T) { imports.Check(t) }
