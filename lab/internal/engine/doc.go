// Package engine is fencelab's replay engine: the scenario format, the
// policies, replay, the explorer and the trace. Package lab exports every
// name of it unchanged, and lab/doc.go is the contract; code outside lab
// imports lab, never this package (Go's internal rule enforces it).
//
// The engine sits here rather than in lab so that a change inside it which
// leaves what it exports alone (a function body, a string, a new
// unexported helper) leaves lab's compiled package byte-identical, and Go
// reuses every package that imports lab from its build cache instead of
// recompiling the pages, the server and the commands. CONTRIBUTING.md
// measures it.
package engine
