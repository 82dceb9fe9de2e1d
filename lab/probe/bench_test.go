package probe_test

import (
	"testing"
	"time"

	"fencelab/lab"
	"fencelab/lab/probe"
	"fencelab/lab/receiver"
)

// BenchmarkSequentialPausedWorker is the whole sequential probe of
// paused-worker against the in-memory reference receiver on loopback:
// reset, two writes, a read after each. Compare its ns/write with
// BenchmarkRoundTripPausedWorker, the same five requests alone: the
// difference is the probe's own cost per write (replay, comparison,
// words).
func BenchmarkSequentialPausedWorker(b *testing.B) {
	p := newProber(b, startReceiver(b, "memory", receiver.Options{Policy: lab.Fenced}), lab.Fenced)
	s := builtin(b, "paused-worker")
	for b.Loop() {
		res, err := p.Sequential(b.Context(), s)
		if err != nil || res.Verdict != probe.Agree {
			b.Fatalf("Sequential = %v, %v", res, err)
		}
	}
	perWrite(b, 2)
}

func BenchmarkRoundTripPausedWorker(b *testing.B) {
	p := newProber(b, startReceiver(b, "memory", receiver.Options{Policy: lab.Fenced}), lab.Fenced)
	t42, t41 := int64(42), int64(41)
	writes := []probe.WriteRequest{
		{Resource: "result", Value: "new-result", Token: &t42, ID: "#6"},
		{Resource: "result", Value: "old-result", Token: &t41, ID: "#8"},
	}
	for b.Loop() {
		if err := p.Client.Reset(b.Context()); err != nil {
			b.Fatal(err)
		}
		for _, w := range writes {
			if _, err := p.Client.Write(b.Context(), w); err != nil {
				b.Fatal(err)
			}
			if _, err := p.Client.Resource(b.Context(), "result"); err != nil {
				b.Fatal(err)
			}
		}
	}
	perWrite(b, 2)
}

func perWrite(b *testing.B, writes int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(writes), "ns/write")
}

// BenchmarkConcurrentSQLite runs the concurrent mode, 8 workers for 3 s,
// against the correct SQLite receiver and reports checked writes per
// second. Run it with -benchtime 1x.
func BenchmarkConcurrentSQLite(b *testing.B) {
	p := newProber(b, startReceiver(b, "sqlite", receiver.Options{Policy: lab.Fenced}), lab.Fenced)
	var requests int
	var seconds float64
	for b.Loop() {
		res, err := p.Concurrent(b.Context(), probe.ConcurrentOptions{Workers: 8, Duration: 3 * time.Second, KeepGoing: true})
		if err != nil || res.Verdict != probe.Agree {
			b.Fatalf("Concurrent = %v, %v", res, err)
		}
		requests += res.Concurrent.Requests
		seconds += res.Concurrent.Seconds
	}
	b.ReportMetric(float64(requests)/seconds, "writes/s")
}
