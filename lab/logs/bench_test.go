package logs

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
)

// noiseLog generates a JSON Lines log of about size bytes in which one
// line in 5,000 is an event: a scheduler's grants and a worker's writes
// among debug noise, as an incident's logs are. It is generated as it is
// read, so the benchmark holds none of it.
type noiseLog struct {
	size, done, line int
	buf              []byte
	peak             *uint64
}

func (g *noiseLog) Read(p []byte) (int, error) {
	for len(g.buf) < len(p) && g.done < g.size {
		g.line++
		var l string
		switch {
		case g.line%10000 == 0:
			l = fmt.Sprintf(`{"ts":%d,"host":"scheduler","msg":"lease granted","worker":"w%d","generation":%d}`, 1764460800000+g.line, g.line/10000%7, g.line/10000)
		case g.line%10000 == 5000:
			l = fmt.Sprintf(`{"ts":%d,"host":"w","msg":"write","worker":"w%d","generation":%d,"result":"r%d","outcome":"accepted"}`, 1764460800000+g.line, g.line/10000%7, g.line/10000, g.line)
		default:
			l = fmt.Sprintf(`{"ts":%d,"host":"api-%d","level":"debug","msg":"request served","path":"/v1/items/%d","latency_ms":%d,"trace":{"id":"%x","sampled":false}}`, 1764460800000+g.line, g.line%3, g.line, g.line%97, g.line*7919)
		}
		g.buf = append(g.buf, l...)
		g.buf = append(g.buf, '\n')
		g.done += len(l) + 1
		if g.line%50000 == 0 {
			g.sample()
		}
	}
	if len(g.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(p, g.buf)
	g.buf = g.buf[:copy(g.buf, g.buf[n:])]
	return n, nil
}

// sample records the live heap's peak.
func (g *noiseLog) sample() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	*g.peak = max(*g.peak, ms.HeapInuse)
}

const benchMap = `{"time": "ts", "actor": "worker", "token": "generation", "value": "result", "host": "host",
 "kind": {"field": "msg", "values": {"lease granted": "acquire", "write": "write"}},
 "observed": {"field": "outcome", "values": {"accepted": "applied"}}}`

// BenchmarkImport100MB imports a generated 100 MB log and reports the
// throughput, the allocations and the peak live heap.
func BenchmarkImport100MB(b *testing.B) {
	const size = 100 << 20
	b.SetBytes(size)
	b.ReportAllocs()
	var peak uint64
	for b.Loop() {
		m, err := ReadMapping(strings.NewReader(benchMap))
		if err != nil {
			b.Fatal(err)
		}
		im := New(m, Options{})
		if err := im.Add("big.jsonl", &noiseLog{size: size, peak: &peak}); err != nil {
			b.Fatal(err)
		}
		res, err := im.Finish(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Scenario.Events) < 100 {
			b.Fatalf("%d events, want the generated ones", len(res.Scenario.Events))
		}
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
}
