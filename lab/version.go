package lab

// Version is the engine's version, stored with every saved run. Change it
// whenever a decision, reason or violation of any trace could change, so
// that a saved run can tell that today's engine would say something else.
const Version = "2.0.0"

// goldenVersion is the Version the golden digests below were taken at.
// TestVersionBumped fails with "bump lab.Version" when a built-in's golden
// trace changes while its events stay the same, and prints the new table.
const goldenVersion = "2.0.0"

// goldenDigest is what a built-in replays (Input) and the golden trace
// goldenVersion gives for it (Trace), each without the lessons' words.
type goldenDigest struct{ Input, Trace string }

var goldenDigests = map[string]goldenDigest{
	"check-at-write":                {"477dd5966fb3924e", "92a6eaab60a55a3c"},
	"check-then-pause":              {"5044502e4b70db9a", "1140e1fa0f97fe3e"},
	"delayed-request":               {"7ac8baa2f6590907", "a71b1a6e97056c34"},
	"delayed-request-arrives-first": {"422972d1b0e50281", "05fe9e138ded2669"},
	"duplicate-retry":               {"3f08163c32ffecd6", "0ccc7281c2718411"},
	"external-side-effect":          {"f1093c5eeeb2519d", "ee3b2b59e892a985"},
	"forgetful-receiver":            {"ddbfa6a1efe409fe", "0d7fb7a3875a4c2a"},
	"issuer-failover":               {"9bd3215841178c4e", "bc6a3bef562efe0a"},
	"killed-worker":                 {"b0f9bb92a06b20f0", "a115c4928f444082"},
	"longer-lease":                  {"6d785c9723d6fe78", "faf1afc2d7979fcd"},
	"old-token-first":               {"28d469728f3e6a20", "a2577751455bd06b"},
	"pause-before-acquire":          {"692a97ae6de14e9b", "3ae26b2d4c4a8698"},
	"paused-worker":                 {"2e0e62e6826046e9", "4900d3054b5f0dab"},
	"racy-receiver":                 {"cb754f05a80b5dc6", "76a32f695d0f037e"},
	"register-on-acquire":           {"28d469728f3e6a20", "a2577751455bd06b"},
	"release-then-reacquire":        {"9a57e514612cac51", "fc729227d27b20a0"},
	"renew-keeps-lease":             {"cefe99985726460d", "725e988cfbe7a267"},
	"repeated-current-token":        {"e52ff54d851b2123", "753fe352b036a890"},
	"scope-mismatch":                {"59d3f5165f2867ab", "67bee48359cf5ef4"},
	"several-writes-one-lease":      {"7fa661bd60ed643e", "eba2eefa8662c7f6"},
}
