package logs

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestPropertyHostOrder imports random incidents of three hosts with
// skewed clocks, retries, crashes and missing expiries, and checks what
// must always hold: no panic, every host's own lines in their order, and
// every inferred or computed event named in a gap or its note.
func TestPropertyHostOrder(t *testing.T) {
	n := 400
	if testing.Short() {
		n = 60
	}
	for seed := range n {
		r := rand.New(rand.NewPCG(uint64(seed), 7))
		files := randomIncident(r)
		opt := Options{}
		if seed%4 == 0 {
			opt = Options{Explore: true, Skew: 200 * time.Millisecond, Budget: 20000}
		}
		res, err := run(t, skewMap, opt, files...)
		if err != nil {
			continue // an incident the import refuses, with its reasons
		}
		last := map[string]int{}
		for i, e := range res.Scenario.Events {
			note := e.Note
			if strings.HasPrefix(note, "inferred: ") || strings.HasPrefix(note, "computed: ") {
				continue
			}
			src := strings.Fields(note)[0]
			src = strings.TrimSuffix(src, ";")
			file, line, _ := strings.Cut(src, ":")
			l, _ := strconv.Atoi(line)
			if l < last[file] {
				t.Fatalf("seed %d: step %d (%s) comes after %s:%d of its own file\n%s", seed, i+1, src, file, last[file], dump(files))
			}
			last[file] = l
		}
		inferred := 0
		for _, e := range res.Scenario.Events {
			if strings.HasPrefix(e.Note, "inferred: ") {
				inferred++
			}
		}
		named := 0
		for _, g := range res.Gaps {
			switch g.Kind {
			case "inferred-expiry", "reacquire", "inferred-send":
				named++
			}
		}
		if inferred != named || len(res.Inferred) != inferred {
			t.Fatalf("seed %d: %d inferred events, %d named in gaps, %d listed\n%s", seed, inferred, named, len(res.Inferred), dump(files))
		}
	}
}

func dump(files []file) string {
	var b strings.Builder
	for _, f := range files {
		fmt.Fprintf(&b, "== %s\n%s", f.name, f.text)
	}
	return b.String()
}

// randomIncident writes a lease service's, two workers' and a
// receiver's logs of a random run, each worker's clock off by up to 1.5 s.
func randomIncident(r *rand.Rand) []file {
	base := time.Date(2026, 11, 9, 10, 0, 0, 0, time.UTC)
	skew := map[string]time.Duration{"worker-1": time.Duration(r.IntN(3000)-1500) * time.Millisecond, "worker-2": time.Duration(r.IntN(3000)-1500) * time.Millisecond}
	logs := map[string]*strings.Builder{"lease": {}, "worker-1": {}, "worker-2": {}, "receiver": {}}
	at := base
	tok := int64(40)
	holder := ""
	for i := range 12 + r.IntN(10) {
		at = at.Add(time.Duration(50+r.IntN(900)) * time.Millisecond)
		w := fmt.Sprintf("worker-%d", 1+r.IntN(2))
		stamp := func(host string) string { return at.Add(skew[host]).Format("2006-01-02T15:04:05.000Z07:00") }
		switch r.IntN(6) {
		case 0, 1:
			if holder != "" && r.IntN(2) == 0 {
				fmt.Fprintf(logs["lease"], "t=%s who=%s msg=expired\n", stamp("lease"), holder)
			}
			tok++
			holder = w
			fmt.Fprintf(logs["lease"], "t=%s who=%s msg=grant tok=%d\n", stamp("lease"), w, tok)
		default:
			req := fmt.Sprintf("r%d", i)
			fmt.Fprintf(logs[w], "t=%s who=%s msg=sent req=%s tok=%d val=v%d\n", stamp(w), w, req, tok-int64(r.IntN(2)), i)
			if r.IntN(5) > 0 {
				at = at.Add(time.Duration(r.IntN(40)) * time.Millisecond)
				out := "applied"
				if r.IntN(3) == 0 {
					out = "rejected"
				}
				fmt.Fprintf(logs["receiver"], "t=%s msg=\"write %s\" req=%s\n", stamp("receiver"), out, req)
			}
		}
	}
	var files []file
	for _, h := range []string{"lease", "worker-1", "worker-2", "receiver"} {
		files = append(files, file{h + ".log", logs[h].String()})
	}
	return files
}
