package lab

import "slices"

// Class says how bad a violation is, spelled as in the spec (model 2).
type Class string

// The four classes, from the most to the least severe.
const (
	// Corrupting: the resource's data is wrong (stale-overwrite,
	// duplicate-applied, lost-update).
	Corrupting Class = "corrupting"
	// Refusing: the valid holder's work was refused (valid-write-rejected).
	Refusing Class = "refusing"
	// Deposed: a write from a lease that had already passed to a newer
	// grant got in (superseded-write; unowned-write while another actor
	// is the current holder of the scope).
	Deposed Class = "deposed"
	// Overrun: the lease ended before the process stopped, but nobody had
	// taken over (unowned-write while the scope has no current holder).
	Overrun Class = "overrun"
)

// classes lists the classes from the most to the least severe.
var classes = [...]Class{Corrupting, Refusing, Deposed, Overrun}

// Classes returns every class from the most severe. The slice is the
// caller's own.
func Classes() []Class { return slices.Clone(classes[:]) }

// numClasses is len(Classes()).
const numClasses = len(classes)

// Severity ranks a class: 4 for corrupting down to 1 for overrun, 0 for
// anything else (no violation, or a trace stored before classes existed).
func (c Class) Severity() int {
	for i, k := range classes {
		if k == c {
			return numClasses - i
		}
	}
	return 0
}

// classOf is the class of a violation of kind inv. unowned-write depends on
// the moment (deposed or overrun); classOf says deposed for it, the class
// it has when someone else holds the scope.
func classOf(inv Invariant) Class {
	switch inv {
	case StaleOverwrite, DuplicateApplied, LostUpdate:
		return Corrupting
	case ValidWriteRejected:
		return Refusing
	}
	return Deposed
}

// Worst is the most severe class among the policy's violations, or "" when
// it broke nothing.
func (s Summary) Worst() Class {
	return worstOf(s.Violations)
}

func worstOf(vs []Violation) Class {
	var w Class
	for _, v := range vs {
		if v.Class.Severity() > w.Severity() {
			w = v.Class
		}
	}
	return w
}
