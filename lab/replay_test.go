package lab

import (
	"fmt"
	"strings"
	"testing"
)

// ev builds a scenario from compact event lines: "A acquire", "A write v",
// "A send r1 v", "deliver r1", "commit r1", "restart result", with
// key=value extras (token=41, op=x, scope=s, resource=r, token=null,
// split=true, rmw=true); "restart scope=s" restarts a lease service.
func ev(t testing.TB, head string, lines ...string) *Scenario {
	t.Helper()
	var events []string
	for _, line := range lines {
		f := strings.Fields(line)
		var parts []string
		rest := f
		switch f[0] {
		case "deliver", "commit":
			parts = append(parts, fmt.Sprintf(`"kind":%q,"request":%q`, f[0], f[1]))
			rest = f[2:]
		case "restart":
			parts = append(parts, `"kind":"restart"`)
			rest = f[1:]
			if !strings.Contains(f[1], "=") {
				parts = append(parts, fmt.Sprintf(`"resource":%q`, f[1]))
				rest = f[2:]
			}
		default:
			parts = append(parts, fmt.Sprintf(`"actor":%q,"kind":%q`, f[0], f[1]))
			rest = f[2:]
			switch f[1] {
			case "write":
				parts = append(parts, fmt.Sprintf(`"value":%q`, rest[0]))
				rest = rest[1:]
			case "send":
				parts = append(parts, fmt.Sprintf(`"id":%q,"value":%q`, rest[0], rest[1]))
				rest = rest[2:]
			}
		}
		for _, kv := range rest {
			k, v, _ := strings.Cut(kv, "=")
			if k == "token" || k == "split" || k == "rmw" {
				parts = append(parts, fmt.Sprintf(`%q:%s`, k, v))
			} else {
				parts = append(parts, fmt.Sprintf(`%q:%q`, k, v))
			}
		}
		events = append(events, "{"+strings.Join(parts, ",")+"}")
	}
	src := `{"version":1,"title":"t",` + head + `"events":[` + strings.Join(events, ",") + `]}`
	s, err := Parse(strings.NewReader(src))
	if err != nil {
		t.Fatalf("Parse(%s): %v", src, err)
	}
	return s
}

const job41 = `"scopes":{"job":{"first_token":41}},`

// Heads of model-3 cases: a balance read and written back; a scope kept in
// memory; two scopes.
const (
	bal       = job41 + `"resources":{"balance":{}},`
	memJob    = `"scopes":{"job":{"first_token":41,"remember":"memory"}},`
	twoScopes = `"scopes":{"orders":{"first_token":41},"invoices":{"first_token":7}},`
)

var pausedWorker = []string{"A acquire", "A read", "A pause", "A expire", "B acquire", "B write new-result", "A resume", "A write old-result"}

// decisions lists the decision of each policy in the order of Policies.
type decisions [numPolicies]Decision

func all9(d Decision) decisions { return decisions{d, d, d, d, d, d, d, d, d} }

func TestReplayDecisions(t *testing.T) {
	t.Parallel()
	U, C, F, S, I, G, A, R := Unfenced, ClientCheck, Fenced, FencedStrict, FencedIdempotent, FencedRegister, Authoritative, FencedRacy
	_ = []Policy{U, C, F, S, I, G, A, R}
	tests := []struct {
		name   string
		head   string
		events []string
		step   int
		want   decisions
	}{
		{"paused worker's stale write", job41, pausedWorker, 8,
			decisions{Accepted, Aborted, Rejected, Rejected, Rejected, Rejected, Rejected, Rejected, Accepted}},
		{"new holder's write", job41, pausedWorker, 6, all9(Accepted)},
		{"second acquire while held is refused", job41, []string{"A acquire", "B acquire"}, 2, all9(Refused)},
		{"acquire of own valid lease is refused", job41, []string{"A acquire", "A acquire"}, 2, all9(Refused)},
		{"acquire after expiry is granted", job41, []string{"A acquire", "A expire", "B acquire"}, 3, all9(Granted)},
		{"acquire after release is granted", job41, []string{"A acquire", "A release", "B acquire"}, 3, all9(Granted)},
		{"paused actor's write is skipped", job41, []string{"A acquire", "A pause", "A write v"}, 3, all9(Skipped)},
		{"expire while paused is allowed", job41, []string{"A acquire", "A pause", "A expire"}, 3, all9(OK)},
		{"expire without a lease is skipped", job41, []string{"A expire"}, 1, all9(Skipped)},
		{"expire twice is skipped", job41, []string{"A acquire", "A expire", "A expire"}, 3, all9(Skipped)},
		{"resume of a running actor is skipped", job41, []string{"A resume"}, 1, all9(Skipped)},
		{"crashed actor cannot resume", job41, []string{"A acquire", "A pause", "A crash", "A resume"}, 4, all9(Skipped)},
		{"crashed actor's lease can expire", job41, []string{"A acquire", "A crash", "A expire"}, 3, all9(OK)},
		{"renew of a valid lease", job41, []string{"A acquire", "A renew"}, 2, all9(Granted)},
		{"renew after expiry is refused", job41, []string{"A acquire", "A expire", "A renew"}, 3, all9(Refused)},
		{"renew without a lease is refused", job41, []string{"A renew"}, 1, all9(Refused)},
		{"old token first is accepted by fenced", job41,
			[]string{"A acquire", "A pause", "A expire", "B acquire", "A resume", "A write old", "B write new"}, 6,
			decisions{Accepted, Aborted, Accepted, Accepted, Accepted, Rejected, Rejected, Accepted, Accepted}},
		{"repeated current token", job41, append(pausedWorker[:8:8], "B write new-result"), 9,
			decisions{Accepted, Accepted, Accepted, Rejected, Accepted, Accepted, Accepted, Accepted, Accepted}},
		{"delayed request delivered after newer write", job41,
			[]string{"A acquire", "A send r1 old", "A pause", "A expire", "B acquire", "B write new", "deliver r1"}, 7,
			decisions{Accepted, Accepted, Rejected, Rejected, Rejected, Rejected, Rejected, Rejected, Accepted}},
		{"deliver before send is skipped", job41, []string{"deliver r1", "A acquire", "A send r1 v"}, 1, all9(Skipped)},
		{"second deliver is skipped", job41, []string{"A acquire", "A send r1 v", "deliver r1", "deliver r1"}, 4, all9(Skipped)},
		{"send by a lease-less worker is aborted under client-check", "", []string{"A send r1 v"}, 1,
			decisions{Sent, Aborted, Sent, Sent, Sent, Sent, Sent, Sent, Sent}},
		{"aborted send is dropped at deliver", "", []string{"A send r1 v", "deliver r1"}, 2,
			decisions{Accepted, Dropped, Rejected, Rejected, Rejected, Rejected, Rejected, Rejected, Accepted}},
		{"check before pause is trusted by client-check", job41,
			[]string{"A acquire", "A check", "A pause", "A expire", "B acquire", "A resume", "A write old"}, 7,
			decisions{Accepted, Accepted, Accepted, Accepted, Accepted, Rejected, Rejected, Accepted, Accepted}},
		{"same op twice", job41, []string{"A acquire", "A write v op=x", "A write v op=x"}, 3,
			decisions{Accepted, Accepted, Accepted, Rejected, Suppressed, Accepted, Accepted, Accepted, Accepted}},
		{"racy receiver checks then commits", job41,
			[]string{"A acquire", "A send r1 old", "deliver r1", "A pause", "A expire", "B acquire", "B write new", "commit r1"}, 3,
			decisions{Accepted, Accepted, Accepted, Accepted, Accepted, Accepted, Accepted, Checked, Accepted}},
		{"racy commit applies without a check", job41,
			[]string{"A acquire", "A send r1 old", "deliver r1", "A pause", "A expire", "B acquire", "B write new", "commit r1"}, 8,
			decisions{OK, OK, OK, OK, OK, OK, OK, Applied, OK}},
		{"commit before deliver is skipped", job41, []string{"A acquire", "A send r1 v", "commit r1", "deliver r1"}, 3, all9(Skipped)},
		{"write without token is rejected by fenced", job41, []string{"A acquire", "A write v token=null"}, 2,
			decisions{Accepted, Accepted, Rejected, Rejected, Rejected, Rejected, Rejected, Rejected, Accepted}},
		{"forgetful receiver accepts the stale token", job41 + `"resources":{"result":{"remember":"memory"}},`,
			[]string{"A acquire", "A pause", "A expire", "B acquire", "B write new", "restart result", "A resume", "A write old"}, 8,
			decisions{Accepted, Aborted, Accepted, Accepted, Accepted, Accepted, Rejected, Accepted, Accepted}},
		{"durable receiver keeps the token", job41,
			[]string{"A acquire", "A pause", "A expire", "B acquire", "B write new", "restart result", "A resume", "A write old"}, 8,
			decisions{Accepted, Aborted, Rejected, Rejected, Rejected, Rejected, Rejected, Rejected, Accepted}},
		{"receiver without fencing accepts", job41 + `"resources":{"email":{"fencing":false}},`,
			[]string{"A acquire", "A pause", "A expire", "B acquire", "B write new", "A resume", "A write old"}, 7,
			decisions{Accepted, Aborted, Accepted, Accepted, Accepted, Accepted, Accepted, Accepted, Accepted}},
		{"duplicated token from a failed-over issuer", job41,
			[]string{"A acquire", "A pause", "A expire", "B acquire token=41", "B write new", "A resume", "A write old"}, 7,
			decisions{Accepted, Aborted, Accepted, Rejected, Accepted, Accepted, Accepted, Accepted, Accepted}},
		{"explicit token continues the issuer", job41, []string{"A acquire token=100", "A expire", "B acquire"}, 3, all9(Granted)},
		// Model 3.
		{"cas rejects a stale rmw write", bal,
			[]string{"A acquire", "A read", "A expire", "B acquire", "B write x", "A write y rmw=true"}, 6,
			decisions{Accepted, Aborted, Rejected, Rejected, Rejected, Rejected, Rejected, Rejected, Rejected}},
		{"cas accepts a fresh rmw write", bal, []string{"A acquire", "A read", "A write y rmw=true"}, 3, all9(Accepted)},
		{"cas rejects an rmw write of a worker that never read", bal,
			[]string{"B write x token=null", "A acquire", "A write y rmw=true"}, 3,
			decisions{Accepted, Accepted, Accepted, Accepted, Accepted, Accepted, Accepted, Accepted, Rejected}},
		{"a read makes the worker fresh again", bal,
			[]string{"A acquire", "A read", "B write x token=null", "A read", "A write y rmw=true"}, 5, all9(Accepted)},
		{"the worker's own writes never make it stale", bal,
			[]string{"A acquire", "A read", "A write x rmw=true", "A write y rmw=true"}, 4,
			decisions{Accepted, Accepted, Accepted, Rejected, Accepted, Accepted, Accepted, Accepted, Accepted}},
		{"a request becomes stale in flight", bal,
			[]string{"A acquire", "A read", "A send r1 y rmw=true", "B write x token=null", "deliver r1"}, 5,
			decisions{Accepted, Accepted, Accepted, Accepted, Accepted, Accepted, Accepted, Accepted, Rejected}},
		{"a checked request becomes stale before its commit", bal,
			[]string{"A acquire", "A read", "A send r1 y rmw=true", "deliver r1", "B write x token=null", "commit r1"}, 6,
			decisions{OK, OK, OK, OK, OK, OK, OK, Applied, OK}},
		{"cas ignores versions at a receiver without fencing", `"resources":{"mail":{"fencing":false}},`,
			[]string{"A acquire", "A read", "B write x", "A write y rmw=true"}, 4,
			decisions{Accepted, Accepted, Accepted, Accepted, Accepted, Accepted, Accepted, Accepted, Accepted}},
		{"split acquire is granted while another holds", job41, []string{"A acquire", "B acquire split=true"}, 2, all9(Granted)},
		{"split acquire by the holder itself is refused", job41, []string{"A acquire", "A acquire split=true"}, 2, all9(Refused)},
		{"split false is a plain acquire", job41, []string{"A acquire", "B acquire split=false"}, 2, all9(Refused)},
		{"authoritative accepts either side of a split", job41, []string{"A acquire", "B acquire split=true", "A write a"}, 3,
			decisions{Accepted, Accepted, Accepted, Accepted, Accepted, Rejected, Accepted, Accepted, Accepted}},
		{"a split lease ends: the earlier holder is current again", job41,
			[]string{"A acquire", "B acquire split=true", "B release", "C acquire"}, 4, all9(Refused)},
		{"check after a split grant still says valid", job41,
			[]string{"A acquire", "B acquire split=true", "A check", "A write a"}, 4,
			decisions{Accepted, Accepted, Accepted, Accepted, Accepted, Rejected, Accepted, Accepted, Accepted}},
		{"a memory scope forgets its lease at a restart", memJob,
			[]string{"A acquire", "restart scope=job", "B acquire"}, 3, all9(Granted)},
		{"a durable scope keeps its lease at a restart", job41,
			[]string{"A acquire", "restart scope=job", "B acquire"}, 3, all9(Refused)},
		{"a scope restart is never skipped", memJob, []string{"restart scope=job"}, 1, all9(OK)},
		{"expire of a forgotten lease is skipped", memJob,
			[]string{"A acquire", "restart scope=job", "A expire"}, 3, all9(Skipped)},
		{"renew of a forgotten lease is refused", memJob,
			[]string{"A acquire", "restart scope=job", "A renew"}, 3, all9(Refused)},
		{"a forgotten lease's write: authoritative rejects", memJob,
			[]string{"A acquire", "restart scope=job", "A write a"}, 3,
			decisions{Accepted, Aborted, Accepted, Accepted, Accepted, Accepted, Rejected, Accepted, Accepted}},
		{"memory keys are forgotten at a restart", job41 + `"resources":{"ledger":{"keys":"memory"}},`,
			[]string{"A acquire", "A write v op=x", "restart ledger", "A write v op=x"}, 4,
			decisions{Accepted, Accepted, Accepted, Rejected, Accepted, Accepted, Accepted, Accepted, Accepted}},
		{"durable keys survive a restart", job41 + `"resources":{"ledger":{"keys":"durable","remember":"memory"}},`,
			[]string{"A acquire", "A write v op=x", "restart ledger", "A write v op=x"}, 4,
			decisions{Accepted, Accepted, Accepted, Accepted, Suppressed, Accepted, Accepted, Accepted, Accepted}},
		{"per-scope tokens take each scope's own", twoScopes + `"resources":{"report":{"tokens":"per-scope"}},`,
			[]string{"A acquire scope=orders", "A acquire scope=invoices", "A write a scope=orders", "A write b"}, 4, all9(Accepted)},
		{"shared tokens lock the smaller scope out", twoScopes,
			[]string{"A acquire scope=orders", "A acquire scope=invoices", "A write a scope=orders", "A write b"}, 4,
			decisions{Accepted, Accepted, Rejected, Rejected, Rejected, Rejected, Accepted, Rejected, Accepted}},
		{"a per-scope receiver rejects a write of no scope", twoScopes + `"resources":{"report":{"tokens":"per-scope"}},`,
			[]string{"B write x token=5"}, 1,
			decisions{Accepted, Aborted, Rejected, Rejected, Rejected, Rejected, Rejected, Rejected, Accepted}},
		{"per-scope register registers the granted scope only", twoScopes + `"resources":{"report":{"tokens":"per-scope"}},`,
			[]string{"A acquire scope=orders", "B acquire scope=invoices", "B write b"}, 3, all9(Accepted)},
		{"a write naming its scope goes by that scope's check", twoScopes,
			[]string{"A acquire scope=orders", "A acquire scope=invoices", "A check scope=orders", "A expire scope=orders", "A write v scope=orders"}, 5,
			decisions{Accepted, Accepted, Accepted, Accepted, Accepted, Accepted, Rejected, Accepted, Accepted}},
		{"a write naming its scope checks that lease now", twoScopes,
			[]string{"A acquire scope=orders", "A expire scope=orders", "A acquire scope=invoices", "A check", "A write v scope=orders"}, 5,
			decisions{Accepted, Aborted, Accepted, Accepted, Accepted, Accepted, Rejected, Accepted, Accepted}},
		{"a write naming no scope goes by any check since the latest grant", twoScopes,
			[]string{"A acquire scope=orders", "A acquire scope=invoices", "A check scope=orders", "A expire scope=invoices", "A write v"}, 5,
			decisions{Accepted, Accepted, Accepted, Accepted, Accepted, Rejected, Rejected, Accepted, Accepted}},
		{"a check of a scope never granted says not valid", twoScopes,
			[]string{"A acquire scope=orders", "A check scope=invoices", "A write v scope=invoices"}, 3,
			decisions{Accepted, Aborted, Rejected, Rejected, Rejected, Rejected, Rejected, Rejected, Accepted}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := Replay(ev(t, tt.head, tt.events...))
			st := tr.Steps[tt.step-1]
			for i, p := range policies {
				if got := st.Outcomes[i].Decision; got != tt.want[i] {
					t.Errorf("Replay(%q) step %d under %s = %q (%s), want %q", tt.name, tt.step, p, got, st.Outcomes[i].Reason, tt.want[i])
				}
			}
		})
	}
}

// TestReplayViolationsModel3 checks the invariants model 3 adds or
// changes, under one policy each: lost-update, the current holder after a
// split grant, and the rules that keep valid-write-rejected off stale rmw
// writes.
func TestReplayViolationsModel3(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		head   string
		events []string
		policy Policy
		want   string // kind@step:class, in the trace's order
	}{
		{"an applied stale rmw write loses an update", bal,
			[]string{"A acquire", "A read", "B write x token=null", "A write y rmw=true"}, Unfenced,
			"unowned-write@3:deposed lost-update@4:corrupting"},
		{"lost-update comes last among a step's violations", bal,
			[]string{"A acquire", "A read", "A expire", "B acquire", "B write x", "A write y rmw=true"}, Unfenced,
			"stale-overwrite@6:corrupting superseded-write@6:deposed unowned-write@6:deposed lost-update@6:corrupting"},
		{"a write without rmw loses nothing", bal,
			[]string{"A acquire", "A read", "B write x token=null", "A write y"}, Unfenced,
			"unowned-write@3:deposed"},
		{"a checked request made stale before its commit", bal,
			[]string{"A acquire", "A read", "A send r1 y rmw=true", "deliver r1", "B write x token=41", "commit r1"}, FencedRacy,
			"unowned-write@5:deposed lost-update@6:corrupting"},
		{"refusing a stale rmw write is no valid-write-rejected", bal,
			[]string{"A acquire", "A read", "B write x token=null", "A write y rmw=true"}, CAS,
			"unowned-write@3:deposed"},
		{"fenced-strict refusing a fresh rmw write of the holder is", bal,
			[]string{"A acquire", "A read", "A write x rmw=true", "A write y rmw=true"}, FencedStrict,
			"valid-write-rejected@4:refusing"},
		{"the earlier side of a split brain is deposed", job41,
			[]string{"A acquire", "B acquire split=true", "A write a"}, Unfenced,
			"superseded-write@3:deposed unowned-write@3:deposed"},
		{"the later side of a split brain is the current holder", job41,
			[]string{"A acquire", "B acquire split=true", "B write b"}, Unfenced, ""},
		{"the earlier holder is current again when the split lease ends", job41,
			[]string{"A acquire", "B acquire split=true", "B release", "A write a"}, Unfenced,
			"superseded-write@4:deposed"},
		{"a deposed holder's write is refused without valid-write-rejected", job41,
			[]string{"A acquire", "B acquire split=true", "B write b", "A write a"}, Fenced, ""},
		{"superseded-write remembers grants before a scope restart", memJob,
			[]string{"A acquire", "A expire", "B acquire", "restart scope=job", "A write a"}, Unfenced,
			"superseded-write@5:deposed unowned-write@5:overrun"},
		{"duplicate-applied remembers keys a receiver forgot", job41 + `"resources":{"ledger":{"keys":"memory"}},`,
			[]string{"A acquire", "A write v op=x", "restart ledger", "A write v op=x"}, FencedIdempotent,
			"duplicate-applied@4:corrupting"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := Replay(ev(t, tt.head, tt.events...))
			var got []string
			for _, v := range tr.Summary[tt.policy].Violations {
				got = append(got, fmt.Sprintf("%s@%d:%s", v.Kind, v.Step, v.Class))
			}
			if g := strings.Join(got, " "); g != tt.want {
				t.Errorf("Replay(%q) violations under %s = [%s], want [%s]", tt.name, tt.policy, g, tt.want)
			}
		})
	}
}
