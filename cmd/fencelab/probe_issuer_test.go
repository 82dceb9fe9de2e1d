package main

import (
	"bytes"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"fencelab/lab"
	"fencelab/lab/probe/issuer/live"
)

// TestMain lets the test binary run as a worker of probe --issuer, which
// starts its workers from os.Executable(), and as the server (or another
// command) of an attack of TestAttacks.
func TestMain(m *testing.M) {
	live.WorkerMain()
	if code, ok := attackChild(); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// probeIssuer runs `fencelab probe ARGS` as main would: the exit code,
// stdout and stderr.
func probeIssuer(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(append([]string{"probe"}, args...), strings.NewReader(""), &out, &errOut)
	code := exitCode(err, &errOut)
	return code, out.String(), errOut.String()
}

func writeTemp(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestIssuerBadInput: every mistake exits 2 with a sentence, before any
// worker starts.
func TestIssuerBadInput(t *testing.T) {
	t.Parallel()
	lease := filepath.Join("..", "..", "docs", "issuer", "sqlite-lease.sql")
	noToken := writeTemp(t, "bad.sql", "-- name: acquire\nUPDATE fl_lease SET n = n + 1;\n-- name: renew\nSELECT 1;\n-- name: release\nSELECT 1;\n")
	unknownParam := writeTemp(t, "param.sql", "-- name: acquire\nSELECT n AS token FROM t WHERE x = :lock;\n-- name: renew\nSELECT :resource;\n-- name: release\nSELECT 1;\n")
	db := filepath.Join(t.TempDir(), "l.db")
	tests := []struct {
		name string
		args []string
		says string
	}{
		{"unknown scheme", []string{"--issuer", "consul://127.0.0.1:8500/x"}, `unknown scheme "consul"`},
		{"missing --db", []string{"--issuer-sql", lease}, "--issuer-sql needs --db URL"},
		{"a fault into an issuer the probe did not start", []string{"--issuer", "redis://127.0.0.1:1/x", "--nemesis", "kill-all"},
			"a fault into an issuer the probe did not start"},
		{"an unknown fault", []string{"--issuer", "redis://127.0.0.1:1/x", "--nemesis", "flood"}, `unknown fault "flood"`},
		{"acquire without token", []string{"--issuer-sql", noToken, "--db", db}, "bad.sql:2: block acquire: its last statement must return a column token"},
		{"an unknown parameter", []string{"--issuer-sql", noToken[:0] + unknownParam, "--db", db}, "param.sql:4: block renew: unknown parameter :resource"},
		{"workers", []string{"--issuer", "redis://127.0.0.1:1/x", "--workers", "17"}, "--workers 17: use 1 to 16"},
		{"ttl", []string{"--issuer", "redis://127.0.0.1:1/x", "--ttl", "500ms"}, "--ttl 500ms: use at least 1s"},
		{"two receivers", []string{"--issuer", "redis://127.0.0.1:1/x", "--target", "http://127.0.0.1:1", "--sql", lease}, "one receiver, not both"},
		{"a receiver claiming cas", []string{"--issuer", "redis://127.0.0.1:1/x", "--target", "http://127.0.0.1:1", "--policy", "cas"}, "judged as fenced"},
		{"--sql without --db", []string{"--issuer", "redis://127.0.0.1:1/x", "--sql", lease}, "--sql needs --db URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := probeIssuer(t, tt.args...)
			if code != 2 || out != "" || !strings.Contains(errOut, tt.says) {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2, nothing, and %q", code, out, errOut, tt.says)
			}
		})
	}
}

// TestIssuerUnreachable: an issuer that does not answer exits 2 within
// --timeout (and a moment for the process), before any worker starts.
func TestIssuerUnreachable(t *testing.T) {
	t.Parallel()
	silent, err := net.Listen("tcp", "127.0.0.1:0") // accepts, never answers
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { silent.Close() })
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	for _, issuer := range []string{"redis://" + strings.TrimPrefix(freeAddr(t), "http://") + "/x", "redis://" + silent.Addr().String() + "/x",
		"etcd://" + silent.Addr().String() + "/x", "zk://" + silent.Addr().String() + "/x"} {
		t.Run(issuer, func(t *testing.T) {
			t.Parallel() // each waits out its second
			start := time.Now()
			code, out, errOut := probeIssuer(t, "--issuer", issuer, "--timeout", "1s", "--json")
			if took := time.Since(start); code != 2 || out != "" || !strings.Contains(errOut, "unreachable") || took > 3*time.Second {
				t.Errorf("exit %d after %s, stdout %q, stderr %q; want 2 within about 1 s, nothing on stdout, unreachable", code, took, out, errOut)
			}
		})
	}
}

// TestIssuerNothingToJudge: a lease table that never grants gives no
// history to judge: exit 2.
func TestIssuerNothingToJudge(t *testing.T) {
	t.Parallel()
	never := writeTemp(t, "never.sql", "-- name: acquire\nSELECT NULL AS token WHERE :lock = :owner AND :ttl_ms = :now_ms;\n-- name: renew\nSELECT 1;\n-- name: release\nSELECT 1;\n")
	code, out, errOut := probeIssuer(t, "--issuer-sql", never, "--db", filepath.Join(t.TempDir(), "l.db"), "--duration", "1s", "--workers", "2", "--json")
	if code != 2 || out != "" || !strings.Contains(errOut, "nothing to judge") {
		t.Errorf("exit %d, stdout %q, stderr %q; want 2 and nothing to judge", code, out, errOut)
	}
}

// issuerReport runs the probe with --json and -o, and reads both.
func issuerReport(t *testing.T, args ...string) (int, map[string]any, *lab.Scenario, string) {
	t.Helper()
	scen := filepath.Join(t.TempDir(), "run.json")
	code, out, errOut := probeIssuer(t, append(args, "--json", "-o", scen)...)
	if code == 2 {
		t.Fatalf("exit 2: %s", errOut)
	}
	var rep map[string]any
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s\n%s", err, out, errOut)
	}
	in, err := os.Open(scen)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	sc, err := lab.Parse(in)
	if err != nil {
		t.Fatalf("-o wrote a scenario the lab refuses: %v", err)
	}
	return code, rep, sc, errOut
}

// TestIssuerSQLiteLeaseHolds: the SQLite lease table of docs/issuer
// under pause-holder: the takeover comes after the TTL, the tokens hold.
func TestIssuerSQLiteLeaseHolds(t *testing.T) {
	if testing.Short() {
		t.Skip("runs worker processes for 6 s")
	}
	t.Parallel()
	code, rep, sc, errOut := issuerReport(t, "--issuer-sql", filepath.Join("..", "..", "docs", "issuer", "sqlite-lease.sql"),
		"--db", filepath.Join(t.TempDir(), "l.db"), "--ttl", "1s", "--hold", "3s", "--duration", "5s", "--nemesis", "pause-holder", "--interval", "2s", "--fault-for", "2s")
	if code != 0 || rep["verdict"] != "held" {
		t.Fatalf("exit %d, verdict %v; want 0, held\n%s", code, rep["verdict"], errOut)
	}
	takes, _ := rep["takeovers"].([]any)
	if len(takes) != 1 {
		t.Fatalf("takeovers %v, want one", rep["takeovers"])
	}
	if s, ok := takes[0].(map[string]any)["seconds"].(float64); !ok || s < 0.99 {
		t.Errorf("takeover %v s: a correct lease table waits the TTL (1 s) from the last renewal", takes[0])
	}
	kinds := map[string]int{}
	for _, e := range sc.Events {
		kinds[string(e.Kind)]++
	}
	if kinds["acquire"] < 2 || kinds["pause"] != 1 || kinds["resume"] != 1 || kinds["expire"] < 1 {
		t.Errorf("the scenario's events: %v; want acquires, one pause and resume, an inferred expire", kinds)
	}
}

// noDeposed is the report's line when no write was sent after a higher
// token went to another worker.
var noDeposed = regexp.MustCompile(`deposed writes\s+0 sent`)

// TestIssuerWithReceiver: the holders write to a receiver with their
// tokens; the paused holder comes back late with its old token. A fenced
// receiver turns it away (held), one that ignores tokens (cas, claimed
// as fenced) applies it (rule 4 broken, in the receiver probe's words).
func TestIssuerWithReceiver(t *testing.T) {
	if testing.Short() {
		t.Skip("runs worker processes for 6 s")
	}
	t.Parallel()
	for _, tt := range []struct {
		policy string
		code   int
		says   string
	}{{"fenced", 0, ""}, {"cas", 1, "BROKEN: the receiver: request #"}} {
		t.Run(tt.policy, func(t *testing.T) {
			t.Parallel()
			target := startReceiverCmd(t, "--policy", tt.policy)
			var code int
			var out, errOut string
			// The situation under test is a holder paused while it holds,
			// back with its old token after another worker's grant. On a
			// loaded machine the pause may land just after a release, and
			// no write is deposed: the run is then tried again, at most
			// three times.
			for range 3 {
				code, out, errOut = probeIssuer(t, "--issuer-sql", filepath.Join("..", "..", "docs", "issuer", "sqlite-lease.sql"),
					"--db", filepath.Join(t.TempDir(), "l.db"), "--target", target, "--policy", "fenced",
					"--ttl", "1s", "--duration", "6s", "--nemesis", "pause-holder", "--interval", "2s", "--fault-for", "2s")
				if !noDeposed.MatchString(out) {
					break
				}
			}
			if code != tt.code || !strings.Contains(out, tt.says) || !strings.Contains(out, "deposed writes") {
				t.Errorf("exit %d, want %d with %q:\n%s\n%s", code, tt.code, tt.says, out, errOut)
			}
		})
	}
}
