package lab

// Version is the engine's version, stored with every saved run. Change it
// whenever a decision, reason or violation of any trace could change, so
// that a saved run can tell that today's engine would say something else.
const Version = "2.0.1"

// goldenVersion is the Version the golden digests below were taken at.
// TestVersionBumped fails with "bump lab.Version" when a built-in's golden
// trace changes while its events stay the same, and prints the new table.
const goldenVersion = "2.0.1"

// goldenDigest is what a built-in replays (Input) and the golden trace
// goldenVersion gives for it (Trace), each without the lessons' words.
type goldenDigest struct{ Input, Trace string }

var goldenDigests = map[string]goldenDigest{
	"check-at-write":                {"477dd5966fb3924e", "0d6122aa29b9ce9e"},
	"check-then-pause":              {"5044502e4b70db9a", "e340d0988da1c438"},
	"delayed-request":               {"7ac8baa2f6590907", "047135352ee3f3c1"},
	"delayed-request-arrives-first": {"422972d1b0e50281", "5c3e3909b0eaff2e"},
	"duplicate-retry":               {"3f08163c32ffecd6", "46c7593702e00de7"},
	"external-side-effect":          {"f1093c5eeeb2519d", "5a5e10b9ec175ede"},
	"forgetful-receiver":            {"ddbfa6a1efe409fe", "2031fce4ffe204db"},
	"issuer-failover":               {"9bd3215841178c4e", "5114cf1611c88510"},
	"killed-worker":                 {"b0f9bb92a06b20f0", "f90a5c5491622e15"},
	"longer-lease":                  {"6d785c9723d6fe78", "9019c230e3817ad6"},
	"old-token-first":               {"28d469728f3e6a20", "ba91c98bb7feb41f"},
	"pause-before-acquire":          {"692a97ae6de14e9b", "fed48efd25f7d267"},
	"paused-worker":                 {"2e0e62e6826046e9", "0ceca3ffb4e6fae6"},
	"racy-receiver":                 {"cb754f05a80b5dc6", "04b16bc3560fcfc2"},
	"register-on-acquire":           {"28d469728f3e6a20", "ba91c98bb7feb41f"},
	"release-then-reacquire":        {"9a57e514612cac51", "530a463ba454857f"},
	"renew-keeps-lease":             {"cefe99985726460d", "55561ea79e4b8588"},
	"repeated-current-token":        {"e52ff54d851b2123", "1bab5932061cf4da"},
	"scope-mismatch":                {"59d3f5165f2867ab", "566052ea2af2ea73"},
	"several-writes-one-lease":      {"7fa661bd60ed643e", "f8a467b2338fd11f"},
}
