package views

import (
	"strings"

	"fencelab/lab"
)

// kindText says what each kind does, for the palette.
var kindText = map[lab.Kind]string{
	lab.Acquire: "takes the lease and its next token (split: even though it is held)",
	lab.Read:    "reads the resource, the basis of its next rmw write",
	lab.Pause:   "stops (a GC pause, a stopped VM)",
	lab.Resume:  "continues after a pause",
	lab.Expire:  "its lease times out",
	lab.Renew:   "extends a still-valid lease",
	lab.Release: "gives the lease back",
	lab.Check:   "asks whether its lease is still valid",
	lab.Write:   "sends a write that arrives at once",
	lab.Send:    "sends a write that stays in flight",
	lab.Deliver: "an in-flight request arrives",
	lab.Commit:  "the racy receiver applies a checked request",
	lab.Restart: "a receiver or a lease service restarts",
	lab.Crash:   "the worker stops for good",
}

// defaultPolicies is lab.DefaultPolicies as the editor's script reads
// them, separated by spaces: the names it shows and leaves out of the
// link when the reader chose none.
func defaultPolicies() string {
	ps := lab.DefaultPolicies()
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = string(p)
	}
	return strings.Join(names, " ")
}
