package sqlite

import (
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkSaveRun measures durable saves (synchronous FULL, one commit per
// group) with 1, 8, 64 and 256 callers saving at once: saves/s is the
// throughput, p99-ms the 99th percentile of one SaveRun call.
func BenchmarkSaveRun(b *testing.B) {
	for _, savers := range []int{1, 8, 64, 256} {
		b.Run(fmt.Sprintf("savers=%d", savers), func(b *testing.B) {
			db, err := Open(filepath.Join(b.TempDir(), "bench.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			r := sampleRun("")
			r.Scenario = []byte(`{"title":"bench","events":[` + eventsJSON(8) + `]}`)
			r.Trace = []byte(`{"steps":[` + eventsJSON(160) + `]}`) // about 11 KB, as paused-worker's trace
			var next atomic.Int64
			latencies := make([][]time.Duration, savers)
			b.ResetTimer()
			start := time.Now()
			var wg sync.WaitGroup
			for g := range savers {
				wg.Go(func() {
					for i := next.Add(1); i <= int64(b.N); i = next.Add(1) {
						run := r
						run.ID = fmt.Sprintf("bench-%d", i)
						t0 := time.Now()
						if _, err := db.SaveRun(b.Context(), run); err != nil {
							b.Error(err)
							return
						}
						latencies[g] = append(latencies[g], time.Since(t0))
					}
				})
			}
			wg.Wait()
			elapsed := time.Since(start)
			b.StopTimer()
			all := slices.Concat(latencies...)
			slices.Sort(all)
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "saves/s")
			b.ReportMetric(float64(all[len(all)*99/100].Microseconds())/1000, "p99-ms")
		})
	}
}

func eventsJSON(n int) string {
	s := ""
	for i := range n {
		if i > 0 {
			s += ","
		}
		s += fmt.Sprintf(`{"kind":"write","actor":"worker-%d","value":"v%d","token":%d}`, i%4, i, i)
	}
	return s
}
