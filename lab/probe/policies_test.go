package probe_test

import (
	"slices"
	"strings"
	"testing"

	"fencelab/lab"
	"fencelab/lab/probe"
	"fencelab/lab/receiver"
)

// TestEveryClaimablePolicyProbed walks every policy of the model: one a
// real receiver could claim is accepted by the probe, and when it checks
// tokens a reference receiver implements it, so TestCorrectReceiversAgree
// plays it (as when it checks versions, cas); any other is refused with a reason that names it.
func TestEveryClaimablePolicyProbed(t *testing.T) {
	for _, p := range lab.Policies() {
		err := probe.CheckPolicy(p)
		switch {
		case !p.ClaimableByReceiver():
			if err == nil || !strings.Contains(err.Error(), string(p)) {
				t.Errorf("CheckPolicy(%s) = %v, want an error naming it", p, err)
			}
		case err != nil || !slices.Contains(probe.Policies, p):
			t.Errorf("CheckPolicy(%s) = %v, in probe.Policies %t; want nil and in it", p, err, slices.Contains(probe.Policies, p))
		case (p.ChecksToken() || p.ChecksVersion()) && !slices.Contains(receiver.Policies, p):
			t.Errorf("policy %s checks tokens or versions but no reference receiver implements it: receiver.Policies = %v", p, receiver.Policies)
		}
	}
	if got := probe.CheckPolicy("no-such-policy"); got == nil {
		t.Errorf("CheckPolicy(%q) = nil, want an error", "no-such-policy")
	}
}

// TestConcurrentPolicy: the concurrent mode checks fencing or lost
// updates, so it refuses a claimable policy that checks neither a token
// nor a version.
func TestConcurrentPolicy(t *testing.T) {
	for _, p := range probe.Policies {
		err := probe.CheckConcurrentPolicy(p)
		if (err == nil) != (p.ChecksToken() || p.ChecksVersion()) {
			t.Errorf("CheckConcurrentPolicy(%s) = %v, want an error only when it checks no token and no version", p, err)
		}
	}
}
