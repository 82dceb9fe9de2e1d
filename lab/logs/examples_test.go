package logs

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fencelab/lab"
)

// importDir imports every log of one of docs/import's incidents with its
// mapping.json, as the files are exported.
func importDir(t *testing.T, dir string, opt Options) *Result {
	t.Helper()
	root := filepath.Join("..", "..", "docs", "import", dir)
	m, err := os.ReadFile(filepath.Join(root, "mapping.json"))
	if err != nil {
		t.Fatal(err)
	}
	names, _ := filepath.Glob(filepath.Join(root, "*.log"))
	var files []file
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, file{filepath.Base(n), string(b)})
	}
	res, err := run(t, string(m), opt, files...)
	if err != nil {
		t.Fatalf("import of docs/import/%s: %v", dir, err)
	}
	return res
}

// TestIncidentExamples checks what docs/import.md says each incident of
// docs/import concludes: the policies the resource behaved like, the
// words of the first, and what the import inferred or shifted.
func TestIncidentExamples(t *testing.T) {
	tests := []struct {
		dir      string
		agreeing []lab.Policy
		words    string
		gaps     []string // kinds, in order
		offsets  map[string]float64
		kinds    string // the timeline's kinds
	}{
		{"k8s", []lab.Policy{lab.Unfenced, lab.CAS},
			"the resource behaved like `unfenced`: it applied token 41 after it had applied 42 (step 9, stale-overwrite)",
			[]string{"repeated-grant", "repeated-grant", "inferred-expiry"}, nil,
			"acquire send deliver expire acquire send deliver send deliver"},
		{"etcd-postgres", []lab.Policy{lab.Fenced, lab.FencedStrict, lab.FencedIdempotent, lab.FencedRegister, lab.Authoritative, lab.FencedRacy},
			"the resource behaved like `fenced`, which breaks no invariant here",
			[]string{"clock-offset", "inferred-expiry"}, map[string]float64{"worker-1": -1080},
			"acquire send deliver expire acquire send deliver send deliver"},
		{"jvm-zookeeper", []lab.Policy{lab.Unfenced, lab.CAS},
			"the resource behaved like `unfenced`: it applied token 41 after it had applied 42 (step 11, stale-overwrite)",
			nil, nil,
			"acquire send deliver pause expire acquire send deliver resume send deliver"},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			res := importDir(t, tt.dir, Options{})
			var agreeing []lab.Policy
			for _, v := range res.Against {
				if v.Agrees {
					agreeing = append(agreeing, v.Policy)
				}
			}
			if !slices.Equal(agreeing, tt.agreeing) {
				t.Errorf("agreeing = %v, want %v", agreeing, tt.agreeing)
			}
			if res.Against[0].Words != tt.words {
				t.Errorf("words = %q, want %q", res.Against[0].Words, tt.words)
			}
			var gaps []string
			for _, g := range res.Gaps {
				gaps = append(gaps, g.Kind)
			}
			if !slices.Equal(gaps, tt.gaps) {
				t.Errorf("gaps = %v, want %v", gaps, tt.gaps)
			}
			offsets := map[string]float64{}
			for _, o := range res.Clocks.Offsets {
				offsets[o.Host] = o.OffsetMS
			}
			if len(offsets) != len(tt.offsets) {
				t.Errorf("offsets = %v, want %v", offsets, tt.offsets)
			}
			for h, o := range tt.offsets {
				if offsets[h] != o {
					t.Errorf("offset of %s = %v, want %v", h, offsets[h], o)
				}
			}
			var kinds []string
			for _, e := range res.Scenario.Events {
				kinds = append(kinds, string(e.Kind))
			}
			if got := strings.Join(kinds, " "); got != tt.kinds {
				t.Errorf("timeline = %s\nwant       %s", got, tt.kinds)
			}
		})
	}
}

// TestJVMPauseComputed checks the JVM's GC line: a pause computed 15.8 s
// before the line, placed among the worker's events by that time, and the
// ZooKeeper expiry bound to the worker through its session id.
func TestJVMPauseComputed(t *testing.T) {
	res := importDir(t, "jvm-zookeeper", Options{})
	evs := res.Scenario.Events
	if n := evs[3].Note; !strings.HasPrefix(n, "computed: worker-1.log:5") {
		t.Errorf("step 4 note = %q, want it computed from worker-1.log:5", n)
	}
	if e := evs[4]; e.Kind != lab.Expire || e.Actor != "worker-1" || e.Note != "zk-1.log:3" {
		t.Errorf("step 5 = %s %s %q, want worker-1's expiry from zk-1.log:3 (bound by its session)", e.Kind, e.Actor, e.Note)
	}
	if res.ProblemCount != 4 {
		t.Errorf("problems = %v, want the JVM banner and the three lines of the stack trace", res.Problems)
	}
	if f := res.Files[1]; f.Format != JSONL || f.Events != 5 {
		t.Errorf("files[1] = %+v, want worker-1.log as jsonl with 5 events", f)
	}
}
