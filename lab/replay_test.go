package lab

import (
	"fmt"
	"strings"
	"testing"
)

// ev builds a scenario from compact event lines: "A acquire", "A write v",
// "A send r1 v", "deliver r1", "commit r1", "restart result", with
// key=value extras (token=41, op=x, scope=s, resource=r, token=null).
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
			parts = append(parts, fmt.Sprintf(`"kind":"restart","resource":%q`, f[1]))
			rest = f[2:]
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
			if k == "token" {
				parts = append(parts, fmt.Sprintf(`"token":%s`, v))
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

var pausedWorker = []string{"A acquire", "A read", "A pause", "A expire", "B acquire", "B write new-result", "A resume", "A write old-result"}

// decisions lists the decision of each policy in the order of Policies.
type decisions [numPolicies]Decision

func all9(d Decision) decisions { return decisions{d, d, d, d, d, d, d, d, d} }

func TestReplayDecisions(t *testing.T) {
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
