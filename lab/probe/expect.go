package probe

import (
	"fmt"
	"maps"
	"slices"

	"fencelab/lab"
)

// Policies lists the policies a receiver can claim, in the order of
// lab.Policies: the ones it decides alone and at once
// (lab.Policy.ClaimableByReceiver). The others decide elsewhere (at the
// worker, at the lease service) or model a broken receiver.
var Policies = slices.DeleteFunc(lab.Policies(), func(p lab.Policy) bool { return !p.ClaimableByReceiver() })

// CheckPolicy says why a receiver cannot claim p, or nil.
func CheckPolicy(p lab.Policy) error {
	switch {
	case p.ClaimableByReceiver():
		return nil
	case p.CommitsLater():
		return fmt.Errorf("a receiver cannot claim %s, the model of a broken one: probe it with the policy it "+
			"means to implement (--policy fenced, say) to find its race", p)
	}
	return fmt.Errorf("--policy %q: use %s", p, lab.PolicyChoice(Policies))
}

// Prepare returns a copy of s in which every resource is what the
// receiver claims to be: fencing, and remembering durably unless remember
// is lab.Memory, with model 2's op keys and single token (model 3 added
// to the receiver contract only the version condition of cas, which needs
// nothing of the resource). It lists, in words, what it changed.
func Prepare(s *lab.Scenario, remember lab.Remember) (*lab.Scenario, []string) {
	c := *s
	c.Resources = maps.Clone(s.Resources)
	changes := []string{}
	for _, name := range lab.SortedNames(c.Resources) {
		r := c.Resources[name]
		if !r.Fencing {
			changes = append(changes, fmt.Sprintf("resource %s is \"fencing\": false in the scenario; the "+
				"receiver takes tokens, so the probe expects it to fence", name))
			r.Fencing = true
		}
		want := lab.Durable
		if remember == lab.Memory {
			want = lab.Memory
		}
		if r.Remember == "" {
			r.Remember = lab.Durable
		}
		switch {
		case r.Remember != want && want == lab.Durable:
			changes = append(changes, fmt.Sprintf("resource %s forgets its token on restart in the scenario "+
				"(\"remember\": \"memory\"); the probe expects a receiver that remembers it durably "+
				"(--remember memory expects one that forgets)", name))
		case r.Remember != want:
			changes = append(changes, fmt.Sprintf("resource %s remembers its token durably in the scenario; "+
				"with --remember memory the probe expects a receiver that forgets it on restart", name))
		}
		r.Remember = want
		// The receiver contract keeps model 2's tokens and keys: one token
		// for all scopes, op keys kept across a restart.
		if r.Keys == lab.Memory {
			changes = append(changes, fmt.Sprintf("resource %s forgets its op keys on restart in the scenario "+
				"(\"keys\": \"memory\"); the probe expects a receiver that keeps them", name))
		}
		if r.Tokens == lab.PerScopeTokens {
			changes = append(changes, fmt.Sprintf("resource %s remembers a token per scope in the scenario "+
				"(\"tokens\": \"per-scope\"); the probe expects a receiver that remembers one token", name))
		}
		r.Keys, r.Tokens = "", ""
		c.Resources[name] = r
	}
	return &c, changes
}

// expectedOutcome turns the model's decision on a delivered write into
// the receiver's word; "" when the receiver never sees the write.
func expectedOutcome(d lab.Decision) string {
	switch d {
	case lab.Accepted:
		return "applied"
	case lab.Rejected:
		return "rejected"
	case lab.Suppressed:
		return "suppressed"
	}
	return ""
}
