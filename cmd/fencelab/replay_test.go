package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"fencelab/lab"
	"fencelab/scenarios"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestSeed: `fencelab replay` with no argument prints exactly the spec's
// four lines, computed by the engine.
func TestSeed(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	if err := run([]string{"replay"}, nil, &out, &errOut); err != nil {
		t.Fatalf("run(replay) = %v; stderr %s", err, errOut.String())
	}
	want := "unfenced final value: old-result\nfenced final value: new-result\n" +
		"repeated current token: accepted\nold token before newer token reaches resource: accepted\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("run(replay) output (-want +got):\n%s", diff)
	}
}

func TestReplayCommand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		args  []string
		stdin string
		code  int
		out   []string
		err   string
	}{
		{"table of a built-in", []string{"replay", "--scenario", "paused-worker"}, "", 0, []string{
			"unfenced: final result = old-result; corrupting: stale-overwrite at step 8; deposed: superseded-write at step 8, unowned-write at step 8",
			"fenced: final result = new-result; no violations",
			"rejected: 41 < 42 already accepted",
		}, ""},
		{"chosen policies from stdin", []string{"replay", "-", "--policies", "fenced-strict"}, pausedWorkerJSON + "\n", 0, []string{
			"fenced-strict: final result = new; no violations", "rejected: 41 is not greater than 42 already accepted",
		}, ""},
		{"warnings are listed", []string{"replay", "-"}, `{"version":1,"title":"t","events":[{"actor":"A","kind":"resume"}]}`, 0,
			[]string{"warning: step 1 skipped: A is not paused"}, ""},
		{"invalid scenario lists every error", []string{"replay", "-"},
			`{"version":1,"title":"t","events":[{"actor":"A","kind":"write"},{"kind":"deliver","request":"x"}]}`, 1, nil,
			"invalid scenario: event 1 (events[0]) value: missing: write needs a value, the string it writes\ninvalid scenario: event 2 (events[1]) request: no send has the id \"x\""},
		{"malformed JSON", []string{"replay", "-"}, `{"version":`, 1, nil, "invalid scenario: malformed JSON"},
		{"unknown policy", []string{"replay", "--scenario", "paused-worker", "--policies", "magic"}, "", 2, nil, `unknown policy "magic"`},
		{"unknown format", []string{"replay", "--scenario", "paused-worker", "--format", "pdf"}, "", 2, nil, `unknown format "pdf"`},
		{"file and scenario", []string{"replay", "x.json", "--scenario", "paused-worker"}, "", 2, nil, "not both"},
		{"missing file", []string{"replay", "/nonexistent.json"}, "", 2, nil, "no such file"},
		{"unknown command", []string{"replya"}, "", 2, nil, `unknown command "replya"`},
		{"scenarios", []string{"scenarios"}, "", 0, []string{"paused-worker ", "issuer-failover "}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := exitCode(run(tt.args, strings.NewReader(tt.stdin), &out, &errOut), &errOut)
			if code != tt.code {
				t.Errorf("run(%q) exit code = %d, want %d; stderr: %s", tt.args, code, tt.code, errOut.String())
			}
			for _, want := range tt.out {
				if !strings.Contains(out.String(), want) {
					t.Errorf("run(%q) output lacks %q; got:\n%s", tt.args, want, out.String())
				}
			}
			if !strings.Contains(errOut.String(), tt.err) {
				t.Errorf("run(%q) stderr = %q, want it to contain %q", tt.args, errOut.String(), tt.err)
			}
		})
	}
}

// TestReplayJSON: --json prints the engine's trace, byte for byte what
// encoding/json makes of lab.Replay (the API sends the same bytes).
func TestReplayJSON(t *testing.T) {
	t.Parallel()
	lib, err := lab.LoadLibrary(scenarios.FS, scenarios.Order())
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range lib.List {
		if testing.Short() && !slices.Contains(shortReplays, b.Name) {
			continue
		}
		var out bytes.Buffer
		if err := run([]string{"replay", "--scenario", b.Name, "--json"}, nil, &out, &bytes.Buffer{}); err != nil {
			t.Fatalf("run(replay --json %s) = %v", b.Name, err)
		}
		want, _ := json.Marshal(lab.Replay(b.Scenario))
		if got := bytes.TrimSuffix(out.Bytes(), []byte("\n")); !bytes.Equal(got, want) {
			t.Errorf("run(replay --json %s) differs from json.Marshal(lab.Replay)", b.Name)
		}
	}
}

// shortReplays are the built-ins TestReplayJSON replays under -short (each
// run parses the whole library again): a violation, late deliveries, a
// suppressed retry, and the model-3 fields of a split grant and a stale read.
var shortReplays = []string{"paused-worker", "delayed-request", "duplicate-retry", "split-brain", "stale-read-fresh-token"}

// TestReplayMarkdownGolden keeps the Markdown export of paused-worker
// (for postmortems) under review; -update rewrites it.
func TestReplayMarkdownGolden(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	args := []string{"replay", "--scenario", "paused-worker", "--format", "markdown", "--policies", "unfenced,fenced,fenced-register"}
	if err := run(args, nil, &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "paused-worker.md")
	if *update {
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), out.String()); diff != "" {
		t.Errorf("run(%q) Markdown (-want +got):\n%s", args, diff)
	}
}

// TestReplayReadsRedirectedStdin: `fencelab replay --json < s.json` reads
// the file as if "-" were given; with no flag at all it is still the seed.
func TestReplayReadsRedirectedStdin(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(path, []byte(pausedWorkerJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	stdin := func() *os.File {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	var out bytes.Buffer
	if err := run([]string{"replay", "--json"}, stdin(), &out, &bytes.Buffer{}); err != nil {
		t.Fatalf("run(replay --json < file) = %v", err)
	}
	var tr lab.Trace
	if err := json.Unmarshal(out.Bytes(), &tr); err != nil || len(tr.Steps) != 7 {
		t.Errorf("run(replay --json < file) printed %d steps (%v), want the 7 of the file", len(tr.Steps), err)
	}
	out.Reset()
	if err := run([]string{"replay"}, stdin(), &out, &bytes.Buffer{}); err != nil || !strings.HasPrefix(out.String(), "unfenced final value: ") {
		t.Errorf("run(replay < file) = %v, %q; want the seed's lines", err, out.String())
	}
}
