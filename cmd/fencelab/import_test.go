package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportCommand runs fencelab import on the walkthrough of
// docs/import and on input it must refuse, checking exit codes and what
// stdout and stderr say.
func TestImportCommand(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "..", "docs", "import")
	logs := []string{filepath.Join(dir, "scheduler.jsonl"), filepath.Join(dir, "worker-1.log"), filepath.Join(dir, "worker-2.log"), filepath.Join(dir, "storage.csv")}
	mapping := filepath.Join(dir, "mapping.json")
	bin := filepath.Join(t.TempDir(), "core.bin")
	if err := os.WriteFile(bin, []byte("\x7fELF\x00\x00\x01\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		code     int
		out, err string
	}{
		{"words", append(append([]string{"import"}, logs...), "--map", mapping), 0,
			"unfenced          agrees     the resource behaved like `unfenced`: it applied token 41 after it had applied 42 (step 11, stale-overwrite)",
			"worker-2.log:5: not logfmt"},
		{"skew", append(append([]string{"import"}, logs...), "--map", mapping, "--skew", "50ms", "--policy", "fenced"), 0,
			"Orderings the clocks allow: 2, all of them explored", ""},
		{"skew stopped early", append(append([]string{"import"}, logs...), "--map", mapping, "--skew", "50ms", "--budget", "1"), 0,
			"before any was followed to its end: none is counted", ""},
		{"strict", append(append([]string{"import"}, logs...), "--map", mapping, "--strict"), 1, "", "worker-2.log:5: not logfmt"},
		{"binary", []string{"import", bin, "--map", mapping}, 1, "", "core.bin:1: binary data"},
		{"no map", []string{"import", bin}, 2, "", "give the mapping with --map FILE"},
		{"bad skew", []string{"import", bin, "--map", mapping, "--skew", "soon"}, 2, "", "--skew"},
		{"bad since", []string{"import", bin, "--map", mapping, "--since", "yesterday"}, 2, "", "is not a time the import reads"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := exitCode(run(tt.args, strings.NewReader(""), &out, &errb), &errb)
			if code != tt.code || !strings.Contains(out.String(), tt.out) || !strings.Contains(errb.String(), tt.err) {
				t.Errorf("fencelab %s = exit %d, want %d\nstdout (want %q):\n%s\nstderr (want %q):\n%s", strings.Join(tt.args, " "), code, tt.code, tt.out, out.String(), tt.err, errb.String())
			}
		})
	}
}

// TestImportCommandJSON checks the --json shape of the contract.
func TestImportCommandJSON(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "..", "docs", "import")
	args := []string{"import", filepath.Join(dir, "scheduler.jsonl"), filepath.Join(dir, "worker-1.log"), filepath.Join(dir, "worker-2.log"),
		filepath.Join(dir, "storage.csv"), "--map", filepath.Join(dir, "mapping.json"), "--json"}
	var out, errb bytes.Buffer
	if err := run(args, strings.NewReader(""), &out, &errb); err != nil {
		t.Fatalf("fencelab import --json: %v\n%s", err, errb.String())
	}
	var got struct {
		Scenario  map[string]any   `json:"scenario"`
		Observed  []map[string]any `json:"observed"`
		Against   []map[string]any `json:"against"`
		Gaps      []map[string]any `json:"gaps"`
		Orderings *json.RawMessage `json:"orderings"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("fencelab import --json: %v", err)
	}
	if got.Scenario["version"] != float64(1) || len(got.Observed) != 2 || len(got.Against) != 9 || got.Orderings != nil {
		t.Errorf("fencelab import --json = version %v, %d observed, %d verdicts, orderings %v; want 1, 2, 9, null",
			got.Scenario["version"], len(got.Observed), len(got.Against), got.Orderings)
	}
	if fd := got.Against[2]["first_disagreement"]; fd != float64(11) {
		t.Errorf("against[2].first_disagreement = %v, want 11", fd)
	}
}

// TestImportV2Command runs the v2 examples and --suggest from the files
// as exported.
func TestImportV2Command(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "..", "docs", "import", "etcd-postgres")
	files, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	var out, errb bytes.Buffer
	args := append(append([]string{"import"}, files...), "--map", filepath.Join(dir, "mapping.json"))
	if err := run(args, strings.NewReader(""), &out, &errb); err != nil {
		t.Fatalf("fencelab import etcd-postgres: %v\n%s", err, errb.String())
	}
	for _, want := range []string{
		"  4  worker-1   expire nightly                                       inferred (worker-2.log:3)",
		"fenced            agrees     the resource behaved like `fenced`, which breaks no invariant here",
		"worker-1 -1080ms: worker-1's clock runs at least 1.08s ahead of postgres's",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("fencelab import etcd-postgres: output lacks %q\n%s", want, out.String())
		}
	}
	out.Reset()
	errb.Reset()
	args = append([]string{"import", "--suggest", "--json"}, files...)
	if err := run(args, strings.NewReader(""), &out, &errb); err != nil {
		t.Fatalf("fencelab import --suggest: %v\n%s", err, errb.String())
	}
	var got struct {
		Mapping json.RawMessage `json:"mapping"`
		Files   []struct {
			File, Format string
			Messages     []struct{ Text string }
		} `json:"files"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Files) != 3 || got.Files[0].Format != "postgres" || got.Files[1].Format != "jsonl" {
		t.Errorf("--suggest files = %+v, want postgres, jsonl, jsonl", got.Files)
	}
	if !strings.Contains(string(got.Mapping), `"match": "postgres.log"`) && !strings.Contains(string(got.Mapping), `"match":"postgres.log"`) {
		t.Errorf("--suggest mapping lacks a section for postgres.log: %s", got.Mapping)
	}
}

// TestImportMarkSaysItsDecisionOnce: a step the model refused is marked
// with the engine's reason, which names the decision itself.
func TestImportMarkSaysItsDecisionOnce(t *testing.T) {
	t.Parallel()
	m := writeTemp(t, "map.json", `{"time": "t", "actor": "who", "token": "tok", "scope": {"value": "job"},
 "kind": {"field": "msg", "values": {"grant": "acquire", "expired": "expire", "renewed": "renew"}}}`)
	log := writeTemp(t, "lease.log", "t=2026-11-05T07:41:00Z who=w1 msg=grant tok=41\n"+
		"t=2026-11-05T07:41:09Z who=w1 msg=expired\nt=2026-11-05T07:41:10Z who=w2 msg=grant tok=42\n"+
		"t=2026-11-05T07:41:12Z who=w1 msg=renewed\n")
	var out, errb bytes.Buffer
	if err := run([]string{"import", log, "--map", m}, strings.NewReader(""), &out, &errb); err != nil {
		t.Fatalf("fencelab import: %v\n%s", err, errb.String())
	}
	if !strings.Contains(out.String(), "  refused: w1 does not hold job") || strings.Contains(out.String(), "refused: refused") {
		t.Errorf("the refused renewal's mark, want \"refused: w1 does not hold job\" once:\n%s", out.String())
	}
}
