package probe

import "fencelab/lab"

// conditions follows a trace under a policy that checks versions (cas)
// and gives each rmw write the version condition the probe sends with it,
// expect_version: the version its writer knows. That is the version the
// model says the writer saw at its latest read of the resource before the
// send (0 when it never read it), plus the writer's own writes applied
// there since that read, up to the deliver: the model takes a worker to
// know the version each of its own writes produced, and never counts them
// as making it stale. So the resource's version at the deliver equals the
// condition exactly when no other actor's write landed since the read,
// which is the model's staleness, and a receiver's plain "current version
// == expect_version" check decides as the model does.
type conditions struct {
	on   bool
	read map[mine]int   // the version the actor saw at its latest read, minus its own writes applied by then
	own  map[mine]int   // the actor's writes applied at the resource so far
	sent map[string]int // per send id, read as the request left
	now  map[string]int // each resource's version after the latest step
}

// mine is an actor at a resource.
type mine struct{ actor, resource string }

// newConditions follows t under policy; it is off (no condition, no
// version expected) unless the policy checks versions and the trace
// counts them, that is the scenario has an rmw write.
func newConditions(t *lab.Trace, policy lab.Policy, pi int) *conditions {
	c := &conditions{read: map[mine]int{}, own: map[mine]int{}, sent: map[string]int{}}
	c.on = policy.ChecksVersion() && len(t.Steps) > 0 && t.Steps[0].Outcomes[pi].Versions != nil
	return c
}

// step notes what a step changes: a read, a send's condition as it
// leaves. Call it before expect for the same step.
func (c *conditions) step(st *lab.Step, o lab.Outcome) {
	if !c.on || o.Decision == lab.Skipped {
		return
	}
	c.now = o.Versions
	e := st.Event
	switch e.Kind {
	case lab.Read:
		for name, v := range o.Versions {
			if e.Resource == "" || e.Resource == name {
				k := mine{e.Actor, name}
				c.read[k] = v - c.own[k]
			}
		}
	case lab.Send:
		c.sent[e.ID] = c.read[mine{e.Actor, e.Resource}]
	}
}

// expect is the condition of the write w (a write, or the send of a
// deliver, with the id id), and notes the write's own version when the
// model applied it; nil for a write that is not rmw or when off.
func (c *conditions) expect(w lab.Event, id string, d lab.Decision) *int64 {
	if !c.on {
		return nil
	}
	k := mine{w.Actor, w.Resource}
	base, ok := c.sent[id]
	if w.Kind == lab.Write || !ok {
		base = c.read[k]
	}
	v := int64(base + c.own[k])
	if d == lab.Accepted {
		c.own[k]++
	}
	if !w.IsRMW() {
		return nil
	}
	return &v
}

// version is the version the model says the resource holds after the
// step, nil when off.
func (c *conditions) version(resource string) *int64 {
	if !c.on {
		return nil
	}
	v := int64(c.now[resource])
	return &v
}
