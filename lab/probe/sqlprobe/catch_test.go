package sqlprobe_test

import (
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"fencelab/lab"
	"fencelab/lab/probe"
)

// TestCatchRate measures how often the concurrent mode catches each racy
// docs/sql example in runs of 10 s, and how soon. It runs only when
// FENCELAB_CATCH_RUNS names the number of runs (20 for docs/probe.md):
//
//	FENCELAB_CATCH_RUNS=20 .ci/with-postgres .ci/with-mariadb go test -run CatchRate -v -timeout 2h ./lab/probe/sqlprobe/
func TestCatchRate(t *testing.T) {
	runs, _ := strconv.Atoi(os.Getenv("FENCELAB_CATCH_RUNS"))
	if runs <= 0 {
		t.Skip("set FENCELAB_CATCH_RUNS=N to measure the catch rate of the racy examples")
	}
	for _, ex := range examples(t) {
		if ex.expect != "racy" {
			continue
		}
		t.Run(ex.name, func(t *testing.T) {
			r, _ := open(t, ex.path, ex.engine, ex.policy, 4)
			p := &probe.Prober{Client: r, Policy: ex.policy, Remember: lab.Durable}
			var times []float64
			for range runs {
				res, err := p.Concurrent(t.Context(), probe.ConcurrentOptions{Workers: 4, Duration: 10 * time.Second})
				if err != nil {
					t.Fatal(err)
				}
				if res.Verdict == probe.Disagree && res.Concurrent.Violation != nil {
					times = append(times, res.Concurrent.Seconds)
				}
			}
			slices.Sort(times)
			t.Logf("%s: caught in %d of %d runs of 10 s; time to catch (s): %s", ex.name, len(times), runs, spread(times))
			if len(times)*20 < runs*19 {
				t.Errorf("%s caught in %d of %d runs, want at least 19 in 20", ex.name, len(times), runs)
			}
		})
	}
}

// spread is the minimum, median and maximum of sorted times.
func spread(ts []float64) string {
	if len(ts) == 0 {
		return "-"
	}
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }
	return "min " + f(ts[0]) + ", median " + f(ts[len(ts)/2]) + ", max " + f(ts[len(ts)-1])
}
