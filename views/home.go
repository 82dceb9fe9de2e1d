package views

import (
	"slices"

	"fencelab/lab"
)

// shelf is one thread of the front page with its built-ins and the number
// of the first, so that the cards are numbered down the page.
type shelf struct {
	lab.Thread
	ID       string // the heading's id
	First    int    // the number of its first card, from 1
	Builtins []lab.Builtin
}

// shelves groups builtins by lab.Threads, in that order. A built-in that
// no thread names (a library loaded from other files) is not lost: it is
// listed last, under "More scenarios".
func shelves(builtins []lab.Builtin) []shelf {
	var out []shelf
	placed := map[string]bool{}
	add := func(th lab.Thread, id string, bs []lab.Builtin) {
		if len(bs) == 0 {
			return
		}
		first := 1
		if n := len(out); n > 0 {
			first = out[n-1].First + len(out[n-1].Builtins)
		}
		out = append(out, shelf{Thread: th, ID: id, First: first, Builtins: bs})
	}
	for i, th := range lab.Threads() {
		var bs []lab.Builtin
		for _, b := range builtins {
			if slices.Contains(th.Names, b.Name) {
				bs, placed[b.Name] = append(bs, b), true
			}
		}
		add(th, "thread-"+twoDigits(i+1), bs)
	}
	var rest []lab.Builtin
	for _, b := range builtins {
		if !placed[b.Name] {
			rest = append(rest, b)
		}
	}
	add(lab.Thread{Title: "More scenarios"}, "thread-more", rest)
	return out
}
