package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fencelab/lab"
	"fencelab/lab/receiver"
)

// startReceiverCmd runs `fencelab receiver` on a free loopback port, as a
// user would, and returns its base URL.
func startReceiverCmd(t *testing.T, args ...string) string {
	t.Helper()
	f, err := parseReceiverFlags(append(args, "--db", filepath.Join(t.TempDir(), "r.db")))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var out bytes.Buffer
	go func() { done <- serveReceiver(ctx, ln, f, &out, io.Discard) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return "http://" + ln.Addr().String()
}

func TestProbeCommand(t *testing.T) {
	t.Parallel()
	fenced := startReceiverCmd(t, "--policy", "fenced", "--store", "sqlite")
	forgetful := startReceiverCmd(t, "--flaw", "forgetful")
	racy := startReceiverCmd(t, "--flaw", "racy", "--window", "1ms")
	cas := startReceiverCmd(t, "--policy", "cas", "--store", "sqlite")
	refused := freeAddr(t)
	duration := "300ms"
	if testing.Short() {
		duration = "30ms"
	}
	tests := []struct {
		name string
		args []string
		code int
		out  []string
	}{
		{"agree", []string{"--target", fenced, "--scenario", "paused-worker", "--policy", "fenced"}, 0,
			[]string{"applied; holds new-result @42", "AGREE"}},
		{"forgetful", []string{"--target", forgetful, "--scenario", "forgetful-receiver"}, 1,
			[]string{"DIFFERS", "DISAGREE: step 8: the receiver applied \"old-result\" with token 41 after it had acknowledged token 42", "note: resource result forgets"}},
		{"markdown", []string{"--target", forgetful, "--scenario", "forgetful-receiver", "--format", "markdown"}, 1,
			[]string{"## Probe: ", "| 8 | A |", "**differs**"}},
		{"orderings with a seed", []string{"--target", fenced, "--scenario", "old-token-first", "--orderings", "5", "--seed", "7"}, 0,
			[]string{"orderings: 5 requested drawn with --seed 7; 5 played, 0 disagree"}},
		{"racy", []string{"--target", racy, "--concurrent", "8", "--duration", "5s"}, 1,
			[]string{"requests/s", "the first violating pair:", "DISAGREE: request #"}},
		{"cas", []string{"--target", cas, "--scenario", "stale-read-fresh-token", "--policy", "cas"}, 0,
			[]string{"POST /writes expect_version=0", `rejected; holds "balance 7" @42, version 1`, "AGREE"}},
		{"cas concurrent", []string{"--target", cas, "--policy", "cas", "--concurrent", "4", "--duration", duration}, 0,
			[]string{"requests/s", "version", "AGREE"}},
		{"cas as fenced", []string{"--target", cas, "--scenario", "paused-worker", "--policy", "fenced"}, 1,
			[]string{"DISAGREE: step 8: the receiver applied \"old-result\" with token 41"}},
		{"unfenced concurrent", []string{"--target", fenced, "--policy", "unfenced", "--concurrent", "2"}, 2, nil},
		{"bare host:port", []string{"--target", strings.TrimPrefix(fenced, "http://"), "--scenario", "old-token-first"}, 0, []string{"AGREE"}},
		{"not a URL", []string{"--target", "ftp://x", "--scenario", "old-token-first"}, 2, nil},
		{"refused", []string{"--target", refused, "--scenario", "paused-worker"}, 2, nil},
		{"no target", []string{"--scenario", "paused-worker"}, 2, nil},
		{"racy policy", []string{"--target", fenced, "--scenario", "paused-worker", "--policy", "fenced-racy"}, 2, nil},
		{"save concurrent", []string{"--target", fenced, "--concurrent", "2", "--save", "http://127.0.0.1:1"}, 2, nil},
		{"bad orderings", []string{"--target", fenced, "--scenario", "paused-worker", "--orderings", "0"}, 2, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := run(append([]string{"probe"}, tt.args...), nil, &out, &errOut)
			if code := exitCode(err, &errOut); code != tt.code {
				t.Fatalf("probe %q exit %d, want %d; stdout:\n%s\nstderr:\n%s", tt.args, code, tt.code, out.String(), errOut.String())
			}
			for _, want := range tt.out {
				if !strings.Contains(out.String(), want) {
					t.Errorf("probe %q printed:\n%s\nwant it to contain %q", tt.args, out.String(), want)
				}
			}
			if tt.code == 2 && errOut.Len() == 0 {
				t.Errorf("probe %q exit 2 said nothing on stderr", tt.args)
			}
		})
	}
}

func TestProbeJSON(t *testing.T) {
	t.Parallel()
	url := startReceiverCmd(t, "--policy", "fenced-idempotent")
	var out bytes.Buffer
	err := run([]string{"probe", "--target", url, "--scenario", "duplicate-retry", "--policy", "fenced-idempotent", "--json"}, nil, &out, io.Discard)
	if err != nil {
		t.Fatalf("probe --json: %v", err)
	}
	var res struct {
		Verdict string `json:"verdict"`
		Steps   []struct {
			Index    int `json:"index"`
			Observed *struct {
				Outcome string `json:"outcome"`
			} `json:"observed"`
		} `json:"steps"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("probe --json printed %s: %v", out.String(), err)
	}
	if res.Verdict != "agree" || len(res.Steps) != 6 || res.Steps[4].Observed == nil || res.Steps[4].Observed.Outcome != "suppressed" {
		t.Errorf("probe --json = %s, want agree with step 5 suppressed", out.String())
	}
}

func TestReceiverFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--policy", "unfenced"}, {"--store", "postgres"}, {"--flaw", "sloppy"}, {"--window", "1ms"}, {"extra"},
	} {
		if _, err := parseReceiverFlags(args); err == nil {
			t.Errorf("parseReceiverFlags(%q) = nil error, want a usage error", args)
		}
	}
	f, err := parseReceiverFlags([]string{"--policy", "fenced-register", "--store", "sqlite", "--flaw", "racy", "--window", "2ms"})
	if err != nil || f.opt != (receiver.Options{Policy: lab.FencedRegister, Flaw: receiver.Racy, Window: 2 * time.Millisecond}) {
		t.Errorf("parseReceiverFlags = %+v, %v", f, err)
	}
}

func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return "http://" + ln.Addr().String()
}
