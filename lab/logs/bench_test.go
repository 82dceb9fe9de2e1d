package logs

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// noiseLog generates a JSON Lines log of about size bytes in which one
// line in 5,000 is an event: a scheduler's grants and a worker's writes
// among debug noise, as an incident's logs are. It is generated as it is
// read, so the benchmark holds none of it.
type noiseLog struct {
	size, done, line int
	buf              []byte
	peak             *uint64
	// events, when set, writes the event lines instead of the default ones.
	events func(buf []byte, line int) []byte
}

func (g *noiseLog) Read(p []byte) (int, error) {
	for len(g.buf) < len(p) && g.done < g.size {
		g.line++
		before := len(g.buf)
		switch {
		case g.events != nil && (g.line%10000 == 0 || g.line%10000 == 5000):
			g.buf = g.events(g.buf, g.line)
		case g.line%10000 == 0:
			g.buf = fmt.Appendf(g.buf, `{"ts":%d,"host":"scheduler","msg":"lease granted","worker":"w%d","generation":%d}`, 1764460800000+g.line, g.line/10000%7, g.line/10000)
		case g.line%10000 == 5000:
			g.buf = fmt.Appendf(g.buf, `{"ts":%d,"host":"w","msg":"write","worker":"w%d","generation":%d,"result":"r%d","outcome":"accepted"}`, 1764460800000+g.line, g.line/10000%7, g.line/10000, g.line)
		default:
			g.buf = g.noise(g.buf)
		}
		g.buf = append(g.buf, '\n')
		g.done += len(g.buf) - before
		if g.line%50000 == 0 && g.peak != nil {
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

// noise appends a debug line without allocating, so that the benchmark's
// allocations are the import's.
func (g *noiseLog) noise(b []byte) []byte {
	b = append(b, `{"ts":`...)
	b = strconv.AppendInt(b, int64(1764460800000+g.line), 10)
	b = append(b, `,"host":"api-`...)
	b = strconv.AppendInt(b, int64(g.line%3), 10)
	b = append(b, `","level":"debug","msg":"request served","path":"/v1/items/`...)
	b = strconv.AppendInt(b, int64(g.line), 10)
	b = append(b, `","latency_ms":`...)
	b = strconv.AppendInt(b, int64(g.line%97), 10)
	b = append(b, `,"trace":{"id":"`...)
	b = strconv.AppendInt(b, int64(g.line*7919), 16)
	return append(b, `","sampled":false}}`...)
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

const rulesMap = `{"time": "ts", "actor": "worker", "token": "generation", "value": "result", "host": "host",
 "kinds": [{"match": "^lease (?:granted|renewed) by scheduler$", "kind": "acquire"},
  {"match": "^write of (?<value>r[0-9]+) (?<observed>accepted|rejected)$", "kind": "write"}]}`

// rulesLog writes the rule benchmark's log to a file: noise, and the
// events' messages as the rules match them.
func rulesLog(b *testing.B, size int) string {
	path := filepath.Join(b.TempDir(), "big.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	var peak uint64
	g := &noiseLog{size: size, peak: &peak, events: func(buf []byte, line int) []byte {
		if line%10000 == 0 {
			return fmt.Appendf(buf, `{"ts":%d,"host":"scheduler","msg":"lease granted by scheduler","worker":"w%d","generation":%d}`, 1764460800000+line, line/10000%7, line/10000)
		}
		return fmt.Appendf(buf, `{"ts":%d,"host":"w","msg":"write of r%d accepted","worker":"w%d","generation":%d}`, 1764460800000+line, line, line/10000%7, line/10000)
	}}
	if _, err := io.Copy(f, g); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkImportRules100MB imports a 100 MB log with regular-expression
// kind rules from a file, and times grep -E -c of the same rules on the
// same file in the same run: the import's MB/s, its peak live heap, and
// grep's MB/s beside it.
func BenchmarkImportRules100MB(b *testing.B) {
	const size = 100 << 20
	path := rulesLog(b, size)
	m, err := ReadMapping(strings.NewReader(rulesMap))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size)
	b.ReportAllocs()
	runtime.GC()
	var peak uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { // sample the live heap while the import runs
		defer close(done)
		for {
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapInuse)
			}
		}
	}()
	start := time.Now()
	for b.Loop() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		im := New(m, Options{})
		if err := im.Add("big.jsonl", f); err != nil {
			b.Fatal(err)
		}
		f.Close()
		res, err := im.Finish(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Scenario.Events) < 100 {
			b.Fatalf("%d events, want the generated ones", len(res.Scenario.Events))
		}
	}
	elapsed := time.Since(start) / time.Duration(b.N)
	close(stop)
	<-done
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	grep, err := exec.LookPath("grep")
	if err != nil {
		return
	}
	t0 := time.Now()
	// grep's ERE has no (?: …): the same alternatives, plain.
	out, err := exec.Command(grep, "-E", "-c", "-e", `"msg":"lease (granted|renewed) by scheduler"`, "-e", `"msg":"write of r[0-9]+ (accepted|rejected)"`, path).Output()
	if err != nil {
		b.Fatalf("grep: %v", err)
	}
	g := time.Since(t0)
	b.ReportMetric(float64(size)/g.Seconds()/1e6, "grep-MB/s")
	b.ReportMetric(g.Seconds()/elapsed.Seconds(), "import/grep-speed")
	_ = out
}
