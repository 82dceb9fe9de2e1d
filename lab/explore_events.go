package lab

import "strconv"

// explored returns the events the explorer orders: the scenario's, except
// that under WritesSplit each write becomes a send with id "#N", N its
// 1-based place in the file, followed by the deliver of that send. The
// send carries the write's actor, value, resource, op, token and note.
func explored(s *Scenario, w Writes) []Event {
	out := make([]Event, 0, len(s.Events)+4)
	for i, e := range s.Events {
		e = copyEvent(e)
		if e.Kind != Write || w == WritesAtomic {
			out = append(out, e)
			continue
		}
		id := writeID(i + 1)
		e.Kind, e.ID = Send, id
		out = append(out, e, Event{Kind: Deliver, Request: id})
	}
	return out
}

// exploredScenario is s with its events replaced by the explored ones. Its
// "#N" ids are not valid in a file; the replay does not mind.
func exploredScenario(s *Scenario, events []Event) *Scenario {
	c := *s
	c.Events = events
	return &c
}

// Reorder returns the scenario of one ordering of the exploration of s:
// order lists each explored event's 1-based index in x.Events once, as
// Counterexample.Order does. The result is a valid scenario that can be
// edited and saved: a send the explorer split from a write, with id "#N",
// gets the id "write-N" ("write-N-2", ... when a send of the file already
// has that id), in its send and its deliver.
func (x *Exploration) Reorder(s *Scenario, order []int) (*Scenario, error) {
	c, err := reorder(s, x.Events, "explored events", order)
	if err != nil {
		return nil, err
	}
	renameWriteIDs(c.Events)
	return c, nil
}

// renameWriteIDs gives the sends split from writes ("#N") a valid id that
// no other send has, and their delivers the same.
func renameWriteIDs(events []Event) {
	taken := map[string]bool{}
	for _, e := range events {
		if e.Kind.Takes("id") && !isWriteID(e.ID) {
			taken[e.ID] = true
		}
	}
	names := map[string]string{}
	for _, e := range events {
		if !e.Kind.Takes("id") || !isWriteID(e.ID) {
			continue
		}
		base := "write-" + e.ID[1:]
		name := base
		for k := 2; taken[name]; k++ {
			name = base + "-" + strconv.Itoa(k)
		}
		taken[name], names[e.ID] = true, name
	}
	for i := range events {
		e := &events[i]
		if n, ok := names[e.ID]; ok && e.Kind.Takes("id") {
			e.ID = n
		}
		if n, ok := names[e.Request]; ok && e.Kind.NamesRequest() {
			e.Request = n
		}
	}
}

// isWriteID reports whether id is one writeID makes.
func isWriteID(id string) bool {
	if len(id) < 2 || id[0] != '#' {
		return false
	}
	_, err := strconv.Atoi(id[1:])
	return err == nil
}
