package lab

import (
	"context"
	"runtime"
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
// scenario under all eight policies (target: under 5 ms).
func BenchmarkExplorePausedWorker(b *testing.B) {
	benchmarkExplore(b, builtin(b, "paused-worker"), ExploreOptions{})
}

// BenchmarkExploreFourWorkers explores four workers that each acquire,
// send and have the request delivered: 369,600 orderings of 12 events
// (target: under 1 s on one core).
func BenchmarkExploreFourWorkers(b *testing.B) {
	benchmarkExplore(b, fourWorkers(b), ExploreOptions{})
}

// BenchmarkExploreCrowdBudget explores a scenario of tens of millions of
// states until a budget of 200,000: the cost and memory of a state when
// states are many.
func BenchmarkExploreCrowdBudget(b *testing.B) {
	benchmarkExplore(b, crowd(b), ExploreOptions{Budget: 200_000})
}
