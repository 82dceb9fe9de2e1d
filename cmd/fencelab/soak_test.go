//go:build soak

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"text/tabwriter"
	"time"

	"fencelab/views/paths"
)

var (
	soakClients  = flag.Int("soak.clients", 500, "clients at once")
	soakDuration = flag.Duration("soak.duration", 60*time.Second, "how long the clients run")
	soakTimeout  = flag.Duration("soak.timeout", 10*time.Second, "a client's timeout per request")
)

// route is one kind of request of the mix, with its share of the requests.
type route struct {
	name   string
	weight int
	// allowed are the statuses besides 2xx and 3xx that the README documents
	// for this route under load (an exploration over the client's share or
	// beyond the server's slots).
	allowed []int
	req     func(s *soakState, client, n int) (*http.Request, error)
}

type soakState struct {
	base  string
	runs  []string // ids saved before the clients start
	names []string // built-in scenarios
	t     testing.TB
}

var soakRoutes = []route{
	{"GET /", 10, nil, func(s *soakState, _, _ int) (*http.Request, error) {
		return http.NewRequest("GET", s.base+"/", nil)
	}},
	{"GET /scenarios/{name}", 20, nil, func(s *soakState, _, n int) (*http.Request, error) {
		return http.NewRequest("GET", s.base+paths.ScenarioPath(s.names[n%len(s.names)]), nil)
	}},
	{"GET /r/{id}", 15, nil, func(s *soakState, _, n int) (*http.Request, error) {
		return http.NewRequest("GET", s.base+paths.RunPath(s.runs[n%len(s.runs)]), nil)
	}},
	{"GET /r/{id}.md", 5, nil, func(s *soakState, _, n int) (*http.Request, error) {
		return http.NewRequest("GET", s.base+paths.RunMarkdownPath(s.runs[n%len(s.runs)]), nil)
	}},
	{"POST /api/replay", 20, nil, func(s *soakState, c, n int) (*http.Request, error) {
		return jsonPost(s.base+"/api/replay", scenarioWithTitle(s.t, fmt.Sprintf("replay %d %d", c, n)))
	}},
	{"POST /api/runs", 20, nil, func(s *soakState, c, n int) (*http.Request, error) {
		return jsonPost(s.base+"/api/runs", scenarioWithTitle(s.t, fmt.Sprintf("soak %d %d %d", c, n, time.Now().UnixNano())))
	}},
	{"POST /api/explore", 5, []int{http.StatusTooManyRequests, http.StatusServiceUnavailable}, func(s *soakState, _, n int) (*http.Request, error) {
		return http.NewRequest("POST", s.base+"/api/explore?from="+s.names[n%len(s.names)], nil)
	}},
	{"GET /explore", 5, []int{http.StatusTooManyRequests, http.StatusServiceUnavailable}, func(s *soakState, _, n int) (*http.Request, error) {
		return http.NewRequest("GET", s.base+"/explore?from="+s.names[(n+3)%len(s.names)], nil)
	}},
}

func jsonPost(url string, body []byte) (*http.Request, error) {
	req, err := http.NewRequest("POST", url, bytes.NewReader(body))
	if err == nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req, err
}

// tally is what the clients saw on one route.
type tally struct {
	mu        sync.Mutex
	latencies []time.Duration
	statuses  map[int]int
	timeouts  int
	errors    int
}

func (t *tally) add(d time.Duration, status int, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var ne net.Error
	switch {
	case err != nil && errors.As(err, &ne) && ne.Timeout():
		t.timeouts++
	case err != nil:
		t.errors++
	default:
		t.statuses[status]++
		t.latencies = append(t.latencies, d)
	}
}

// TestSoak runs a crowd of clients on a mix of pages, replays, saves and
// explorations against the real program and prints, per route, the count,
// the 5xx, the timeouts and the latency percentiles, and the server's RSS.
//
//	go test -tags soak -run TestSoak -v -timeout 10m ./cmd/fencelab [-soak.clients=500 -soak.duration=60s]
func TestSoak(t *testing.T) {
	dir := t.TempDir()
	bin := buildBinary(t, dir)
	srv := startServer(t, bin, filepath.Join(dir, "soak.db"))
	defer srv.stop(syscall.SIGTERM)
	s := &soakState{base: srv.base, t: t}
	for _, e := range mustEntries(t) {
		s.names = append(s.names, e)
	}
	for i := range 50 {
		s.runs = append(s.runs, saveOne(t, srv.base, fmt.Sprintf("seed run %d", i)))
	}
	rssBefore, _ := rssKB(srv.cmd.Process.Pid)

	tallies := make([]*tally, len(soakRoutes))
	var total int
	for i, r := range soakRoutes {
		tallies[i] = &tally{statuses: map[int]int{}}
		total += r.weight
	}
	client := &http.Client{Timeout: *soakTimeout, Transport: &http.Transport{
		MaxIdleConnsPerHost: *soakClients, MaxConnsPerHost: 0, DisableCompression: true}}
	deadline := time.Now().Add(*soakDuration)
	var wg sync.WaitGroup
	for c := range *soakClients {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(c), 7))
			for n := 0; time.Now().Before(deadline); n++ {
				i := pick(rng.IntN(total))
				req, err := soakRoutes[i].req(s, c, n)
				if err != nil {
					t.Error(err)
					return
				}
				start := time.Now()
				resp, err := client.Do(req)
				status := 0
				if err == nil {
					_, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					status = resp.StatusCode
				}
				tallies[i].add(time.Since(start), status, err)
			}
		})
	}
	wg.Wait()
	rssAfter, peak := rssKB(srv.cmd.Process.Pid)
	report(t, tallies, rssBefore, rssAfter, peak)
}

func pick(x int) int {
	for i, r := range soakRoutes {
		if x < r.weight {
			return i
		}
		x -= r.weight
	}
	return len(soakRoutes) - 1
}

func mustEntries(t *testing.T) []string {
	t.Helper()
	names, err := filepath.Glob("../../scenarios/*.json")
	if err != nil || len(names) == 0 {
		t.Fatalf("no built-in scenarios: %v", err)
	}
	var out []string
	for _, n := range names {
		out = append(out, strings.TrimSuffix(filepath.Base(n), ".json"))
	}
	return out
}

func saveOne(t *testing.T, base, title string) string {
	t.Helper()
	resp, err := http.Post(base+"/api/runs", "application/json", bytes.NewReader(scenarioWithTitle(t, title)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var saved struct{ ID string }
	if err := json.NewDecoder(resp.Body).Decode(&saved); err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("seed save: %d %v", resp.StatusCode, err)
	}
	return saved.ID
}

// report prints the table and fails on an undocumented 5xx or a timeout.
func report(t *testing.T, tallies []*tally, rssBefore, rssAfter, peak int) {
	var buf bytes.Buffer
	w := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(w, "route\trequests\tper s\t5xx\t429/503\ttimeouts\terrors\tp50\tp99\tmax\t\n")
	secs := soakDuration.Seconds()
	var bad, timeouts int
	for i, r := range soakRoutes {
		tl := tallies[i]
		slices.Sort(tl.latencies)
		var n, fivexx, refused int
		for code, k := range tl.statuses {
			n += k
			switch {
			case slices.Contains(r.allowed, code):
				refused += k
			case code >= 500:
				fivexx += k
			}
		}
		bad += fivexx
		timeouts += tl.timeouts
		fmt.Fprintf(w, "%s\t%d\t%.0f\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t\n", r.name, n, float64(n)/secs, fivexx, refused,
			tl.timeouts, tl.errors, pct(tl.latencies, 50), pct(tl.latencies, 99), pct(tl.latencies, 100))
	}
	w.Flush()
	saves := tallies[slices.IndexFunc(soakRoutes, func(r route) bool { return r.name == "POST /api/runs" })]
	fmt.Fprintf(&buf, "%d clients for %v: %.0f durable saves/s; server RSS %d MB before, %d MB after, %d MB at peak\n",
		*soakClients, *soakDuration, float64(saves.statuses[http.StatusCreated])/secs, rssBefore/1024, rssAfter/1024, peak/1024)
	codes := map[string]map[int]int{}
	for i, r := range soakRoutes {
		codes[r.name] = tallies[i].statuses
	}
	keys := make([]string, 0, len(codes))
	for k := range codes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&buf, "  %s statuses: %v\n", k, codes[k])
	}
	os.Stdout.Write(buf.Bytes())
	if bad > 0 || timeouts > 0 {
		t.Errorf("%d undocumented 5xx and %d timeouts under load", bad, timeouts)
	}
}

func pct(sorted []time.Duration, p int) string {
	if len(sorted) == 0 {
		return "-"
	}
	i := (len(sorted) - 1) * p / 100
	return sorted[i].Round(100 * time.Microsecond).String()
}
