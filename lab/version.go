package lab

// Version is the engine's version, stored with every saved run. Change it
// whenever a decision, reason or violation of any trace could change, so
// that a saved run can tell that today's engine would say something else.
const Version = "3.0.1"

// goldenVersion is the Version the golden digests below were taken at.
// TestVersionBumped fails with "bump lab.Version" when a built-in's golden
// trace changes while its events stay the same, and prints the new table.
const goldenVersion = "3.0.1"

// goldenDigest is what a built-in replays (Input) and the golden trace
// goldenVersion gives for it (Trace), each without the lessons' words.
type goldenDigest struct{ Input, Trace string }

var goldenDigests = map[string]goldenDigest{
	"check-at-write":                {"477dd5966fb3924e", "ee71238b53fb2f7b"},
	"check-then-pause":              {"5044502e4b70db9a", "53d3583f3fca25bb"},
	"delayed-request":               {"7ac8baa2f6590907", "1190cdb746db87e8"},
	"delayed-request-arrives-first": {"422972d1b0e50281", "635254989ca74af6"},
	"duplicate-retry":               {"3f08163c32ffecd6", "f078938b246de33d"},
	"external-side-effect":          {"f1093c5eeeb2519d", "43eb92208686593c"},
	"forgetful-receiver":            {"ddbfa6a1efe409fe", "82908c7471a5ec99"},
	"issuer-failover":               {"9bd3215841178c4e", "d156038285299965"},
	"keys-forgotten":                {"c25cd26c1aa1f6a2", "5965766b67fd45e0"},
	"killed-worker":                 {"b0f9bb92a06b20f0", "6c065b5290de9d74"},
	"lease-service-forgets":         {"7d680dcb01201703", "f0f13ea007d21e05"},
	"longer-lease":                  {"6d785c9723d6fe78", "e9645fa26a86c67d"},
	"old-token-first":               {"28d469728f3e6a20", "d42fee6fb65e649a"},
	"pause-before-acquire":          {"692a97ae6de14e9b", "8407e60084838226"},
	"paused-worker":                 {"2e0e62e6826046e9", "509d7744a6ced87e"},
	"racy-receiver":                 {"cb754f05a80b5dc6", "05bd4193b765847b"},
	"register-on-acquire":           {"28d469728f3e6a20", "d42fee6fb65e649a"},
	"release-then-reacquire":        {"9a57e514612cac51", "60eecbf66853514b"},
	"renew-keeps-lease":             {"cefe99985726460d", "e099aa86a7a6868c"},
	"repeated-current-token":        {"e52ff54d851b2123", "245ba13fe1b1e475"},
	"scope-mismatch":                {"59d3f5165f2867ab", "83f5fcd5112d7987"},
	"several-writes-one-lease":      {"7fa661bd60ed643e", "e62f016947aca6e7"},
	"split-brain":                   {"71b394791c1c1b9c", "eb0157cecaa43ae5"},
	"stale-read-fresh-token":        {"b0eed0b89719f65f", "f74b8618199c5815"},
	"two-leases-one-worker":         {"81e05012fdbab234", "76fd89f40be0269f"},
}
