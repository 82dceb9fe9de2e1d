package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"fencelab/lab"
)

func TestExploreCommand(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		stdin string
		code  int
		out   []string // lines the output must contain
		err   string
	}{
		{"old-token-first", []string{"explore", "--scenario", "old-token-first"}, "", 0, []string{
			"7 events, 37 distinct states: all 21 orderings explored",
			"client-check       safe in all 21 orderings",
			"fenced             12 of 21 orderings break an invariant (superseded-write 2, unowned-write 12); first: 1 2 3 5 6 4 7 breaks unowned-write at step 5",
			"fenced-register    10 of 21 orderings break an invariant (unowned-write 10);",
			"authoritative      safe in all 21 orderings",
		}, ""},
		{"budget", []string{"explore", "--budget", "5", "-"}, pausedWorkerJSON, 0, []string{
			"stopped at the state budget (--budget)",
			"client-check       no violation in the 0 orderings explored",
		}, ""},
		{"no scenario", []string{"explore"}, "", 2, nil, "explore: give a scenario file, - for stdin, or --scenario NAME"},
		{"two files", []string{"explore", "a.json", "b.json"}, "", 2, nil, "explore: give one scenario file"},
		{"bad budget", []string{"explore", "--scenario", "paused-worker", "--budget", "0"}, "", 2, nil, "explore: --budget must be at least 1"},
		{"unknown scenario", []string{"explore", "--scenario", "nope"}, "", 2, nil, `explore: no built-in scenario "nope"`},
		{"invalid scenario", []string{"explore", "-"}, `{"version":1,"title":"t","events":[{"kind":"bogus"}]}`, 1, nil,
			`invalid scenario: event 1 (events[0]) kind: unknown kind "bogus"`},
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

func TestExploreCommandJSON(t *testing.T) {
	var out, errOut bytes.Buffer
	args := []string{"explore", "--scenario", "old-token-first", "--json"}
	if err := run(args, nil, &out, &errOut); err != nil {
		t.Fatalf("run(%q): %v", args, err)
	}
	var x lab.Exploration
	if err := json.Unmarshal(out.Bytes(), &x); err != nil {
		t.Fatalf("run(%q) printed no exploration JSON: %v\n%s", args, err, out.String())
	}
	if !x.Complete || x.Orderings.Int64() != 21 || len(x.Policies) != len(lab.Policies) {
		t.Errorf("run(%q) = complete %v, %v orderings, %d policies; want complete, 21, %d", args, x.Complete, x.Orderings, len(x.Policies), len(lab.Policies))
	}
}

const pausedWorkerJSON = `{"version":1,"title":"paused","scopes":{"job":{"first_token":41}},"events":[
{"actor":"A","kind":"acquire"},{"actor":"A","kind":"pause"},{"actor":"A","kind":"expire"},
{"actor":"B","kind":"acquire"},{"actor":"B","kind":"write","value":"new"},
{"actor":"A","kind":"resume"},{"actor":"A","kind":"write","value":"old"}]}`
