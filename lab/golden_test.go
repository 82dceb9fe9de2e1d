package lab_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"fencelab/lab"
	"fencelab/scenarios"
)

var update = flag.Bool("update", false, "rewrite the golden traces in testdata/golden")

func library(t testing.TB) *lab.Library {
	t.Helper()
	lib, err := lab.LoadLibrary(scenarios.FS, scenarios.Order())
	if err != nil {
		t.Fatalf("LoadLibrary: %v", err)
	}
	return lib
}

// TestGoldenTraces compares the trace of every built-in scenario with its
// golden file. Run `go test ./lab -run Golden -update` after a deliberate
// change, and read the diff.
func TestGoldenTraces(t *testing.T) {
	t.Parallel()
	for _, b := range library(t).List {
		t.Run(b.Name, func(t *testing.T) {
			got, err := json.MarshalIndent(lab.Replay(b.Scenario), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			path := filepath.Join("testdata", "golden", b.Name+".json")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("Replay(%s) trace differs from %s (-want +got):\n%s", b.Name, path, diff)
			}
		})
	}
}

// TestDeterministic replays every built-in twice and wants byte-equal JSON.
func TestDeterministic(t *testing.T) {
	t.Parallel()
	for _, b := range library(t).List {
		first, _ := json.Marshal(lab.Replay(b.Scenario))
		second, _ := json.Marshal(lab.Replay(b.Scenario))
		if !bytes.Equal(first, second) {
			t.Errorf("Replay(%s) is not deterministic", b.Name)
		}
	}
}
