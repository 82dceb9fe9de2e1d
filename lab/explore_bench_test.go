package lab

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
)

// benchmarkExplore explores s once per iteration and reports the
// orderings, the distinct states, the states explored a second, the bytes
// the explorer held per stored state, and the bytes it allocated per state
// (the held ones plus the slabs' and table's growth and the replay's
// garbage).
func benchmarkExplore(b *testing.B, s *Scenario, opt ExploreOptions) {
	var x *Exploration
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ReportAllocs()
	for b.Loop() {
		x = Explore(context.Background(), s, opt)
	}
	runtime.ReadMemStats(&after)
	states := float64(x.States)
	orderings, _ := x.Orderings.Float64()
	b.ReportMetric(orderings, "orderings")
	b.ReportMetric(states, "states")
	b.ReportMetric(states*float64(b.N)/b.Elapsed().Seconds(), "states/s")
	b.ReportMetric(float64(x.Bytes)/states, "held-B/state")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/states, "alloc-B/state")
}

// BenchmarkExplorePausedWorker explores every ordering of the seed's
// scenario under all nine policies, model 2's way: 720 orderings of 10
// explored events (target: under 5 ms).
func BenchmarkExplorePausedWorker(b *testing.B) {
	benchmarkExplore(b, builtin(b, "paused-worker"), ExploreOptions{})
}

// BenchmarkExplorePausedWorkerModel1 is the same with model 1's rules
// (writes atomic, expiry program): 28 orderings of 8 events.
func BenchmarkExplorePausedWorkerModel1(b *testing.B) {
	benchmarkExplore(b, builtin(b, "paused-worker"), ExploreOptions{Writes: WritesAtomic, Expiry: ExpiryProgram})
}

// BenchmarkExploreFourWorkers explores four workers that each acquire,
// send and have the request delivered: 369,600 orderings of 12 events
// (target: under 10 ms).
func BenchmarkExploreFourWorkers(b *testing.B) {
	benchmarkExplore(b, fourWorkers(b), ExploreOptions{})
}

// BenchmarkExploreThreeWorkersExpiring explores three workers that each
// acquire, check their lease, have it expire and write: 12 events in the
// file, 15 explored once the writes are split, 48,432,384 orderings.
func BenchmarkExploreThreeWorkersExpiring(b *testing.B) {
	benchmarkExplore(b, threeExpiring(b), ExploreOptions{})
}

// BenchmarkExploreCrowdBudget explores a scenario of tens of millions of
// states until a budget of 200,000: the cost and memory of a state when
// states are many.
func BenchmarkExploreCrowdBudget(b *testing.B) {
	benchmarkExplore(b, crowd(b), ExploreOptions{Budget: 200_000})
}

// BenchmarkExploreSpinModel explores the scenario .ci/spin compares with
// SPIN: four workers that each acquire, have the lease expire, send and
// have the request delivered, 576,309 distinct states (run it with
// -benchtime 1x).
func BenchmarkExploreSpinModel(b *testing.B) {
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			benchmarkExplore(b, spinModel(b, 4), ExploreOptions{Budget: 100_000_000, Workers: w, RunAll: runAll})
		})
	}
}

// spinModel is the scenario of .ci/spin for n workers, the twin of
// lab/testdata/spin/fence.pml.
func spinModel(t testing.TB, n int) *Scenario {
	var lines []string
	for w := range n {
		a := fmt.Sprintf("W%d", w+1)
		lines = append(lines, a+" acquire", a+" expire", a+" send "+a+" v", "deliver "+a)
	}
	return ev(t, job41, lines...)
}

// runAll runs tasks on goroutines, as the CLI and the server do.
func runAll(tasks []func()) {
	var wg sync.WaitGroup
	for _, t := range tasks {
		wg.Go(t)
	}
	wg.Wait()
}
