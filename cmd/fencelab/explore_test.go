package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"fencelab/lab"
)

func TestExploreCommand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		args  []string
		stdin string
		code  int
		out   []string // lines the output must contain
		err   string
	}{
		{"paused-worker", []string{"explore", "--scenario", "paused-worker"}, "", 0, []string{
			"10 events, 144 distinct states: all 720 orderings explored",
			"   6  B send #6 → result \"new-result\"\n   7  deliver #6\n",
			"unfenced           corrupting in 70 of 720 orderings (the others: deposed 392, overrun 257, clean 1); first corrupting: 1 2 3 4 5 6 7 8 9 10, stale-overwrite at step 10",
			"client-check       corrupting in 1 of 720 orderings",
			"fenced             deposed in 50 of 720 orderings (the others: overrun 300, clean 370); first deposed: 1 2 3 4 5 8 9 10 6 7, superseded-write at step 8",
			"fenced-register    overrun in 300 of 720 orderings (the others: clean 420);",
			"authoritative      clean in all 720 orderings",
		}, ""},
		{"model 1", []string{"explore", "--scenario", "old-token-first", "--writes", "atomic", "--expiry", "program"}, "", 0, []string{
			"7 events, 40 distinct states: all 21 orderings explored",
			"each write one step (--writes atomic); an expire in its worker's order (--expiry program)",
			"client-check       clean in all 21 orderings",
			"fenced             deposed in 2 of 21 orderings (the others: overrun 10, clean 9); first deposed: 1 2 3 4 5 6 7, superseded-write at step 6",
			"authoritative      clean in all 21 orderings",
		}, ""},
		{"three workers", []string{"explore", "--scenario", "paused-worker", "--workers", "3"}, "", 0, []string{
			"10 events, 144 distinct states: all 720 orderings explored",
			"fenced             deposed in 50 of 720 orderings (the others: overrun 300, clean 370); first deposed: 1 2 3 4 5 8 9 10 6 7, superseded-write at step 8",
		}, ""},
		{"bad workers", []string{"explore", "--scenario", "paused-worker", "--workers", "0"}, "", 2, nil, "explore: --workers must be at least 1, got 0"},
		{"budget", []string{"explore", "--budget", "5", "-"}, pausedWorkerJSON, 0, []string{
			"stopped at the state budget (--budget); no ordering was followed to its end, so none is counted",
			"client-check       no violation met in the steps taken",
		}, ""},
		{"bad writes", []string{"explore", "--scenario", "paused-worker", "--writes", "split-ish"}, "", 2, nil, `explore: --writes must be split or atomic, got "split-ish"`},
		{"bad expiry", []string{"explore", "--scenario", "paused-worker", "--expiry", "never"}, "", 2, nil, `explore: --expiry must be free or program, got "never"`},
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

// TestExploreCommandJSON is the contract's table through the CLI: the
// orderings and, per policy, the worst class with the orderings reaching it.
func TestExploreCommandJSON(t *testing.T) {
	t.Parallel()
	fencedFamily := func(fenced, register string) map[lab.Policy]string {
		return map[lab.Policy]string{lab.Fenced: fenced, lab.FencedStrict: fenced, lab.FencedIdempotent: fenced,
			lab.FencedRacy: fenced, lab.FencedRegister: register}
	}
	tests := []struct {
		name      string
		orderings int64
		events    int
		worst     map[lab.Policy]string // the policies the contract names
	}{
		{"paused-worker", 720, 10, fencedFamily("deposed 50", "overrun 300")},
		{"old-token-first", 420, 9, fencedFamily("deposed 30", "overrun 159")},
		{"issuer-failover", 420, 9, map[lab.Policy]string{lab.FencedStrict: "refusing 35", lab.Authoritative: "deposed 65",
			lab.Fenced: "deposed 65", lab.FencedRegister: "deposed 65", lab.ClientCheck: "deposed 3"}},
	}
	tests[0].worst[lab.Unfenced], tests[0].worst[lab.ClientCheck], tests[0].worst[lab.Authoritative] = "corrupting 70", "corrupting 1", "none"
	tests[1].worst[lab.Unfenced], tests[1].worst[lab.ClientCheck], tests[1].worst[lab.Authoritative] = "corrupting 35", "corrupting 1", "none"
	for _, tt := range tests {
		var out, errOut bytes.Buffer
		args := []string{"explore", "--scenario", tt.name, "--json"}
		if err := run(args, nil, &out, &errOut); err != nil {
			t.Fatalf("run(%q): %v", args, err)
		}
		var x lab.Exploration
		if err := json.Unmarshal(out.Bytes(), &x); err != nil {
			t.Fatalf("run(%q) printed no exploration JSON: %v\n%s", args, err, out.String())
		}
		if !x.Complete || x.Orderings.Int64() != tt.orderings || len(x.Policies) != len(lab.Policies()) || len(x.Events) != tt.events {
			t.Errorf("run(%q) = complete %v, %v orderings, %d policies, %d events; want complete, %d, %d, %d",
				args, x.Complete, x.Orderings, len(x.Policies), len(x.Events), tt.orderings, len(lab.Policies()), tt.events)
		}
		for _, pe := range x.Policies {
			want, ok := tt.worst[pe.Policy]
			if !ok {
				continue
			}
			got := "none"
			if pe.Worst != nil {
				got = fmt.Sprintf("%s %s", *pe.Worst, pe.ByClass[*pe.Worst])
			}
			if got != want {
				t.Errorf("run(%q) under %s: worst %s, want %s", args, pe.Policy, got, want)
			}
		}
	}
}

const pausedWorkerJSON = `{"version":1,"title":"paused","scopes":{"job":{"first_token":41}},"events":[
{"actor":"A","kind":"acquire"},{"actor":"A","kind":"pause"},{"actor":"A","kind":"expire"},
{"actor":"B","kind":"acquire"},{"actor":"B","kind":"write","value":"new"},
{"actor":"A","kind":"resume"},{"actor":"A","kind":"write","value":"old"}]}`
