package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"fencelab/lab"
	"fencelab/scenarios"
	"fencelab/server/store"
	"fencelab/server/store/postgres"
	"fencelab/server/store/sqlite"
	"fencelab/server/store/storetest"
)

// BenchmarkDurableSaves saves distinct runs from 1, 8 and 64 goroutines
// at once, on SQLite and on PostgreSQL (FENCELAB_TEST_POSTGRES) in the
// same run. Each save returns only once it is durable (SQLite FULL
// synchronous, PostgreSQL's synchronous commit). It reports saves/s and
// the 99th percentile of one save's latency.
//
//	go test -run '^$' -bench DurableSaves ./cmd/fencelab
func BenchmarkDurableSaves(b *testing.B) {
	stores := []struct {
		name string
		open func(b *testing.B) store.Runs
	}{
		{"sqlite", func(b *testing.B) store.Runs {
			db, err := sqlite.Open(filepath.Join(b.TempDir(), "bench.db"))
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { db.Close() })
			return db
		}},
		{"postgres", func(b *testing.B) store.Runs {
			dsn, _ := storetest.FreshSchema(b, storetest.PostgresURL(b))
			db, err := postgres.Open(context.Background(), dsn)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { db.Close() })
			return db
		}},
	}
	template := sampleRun(b)
	for _, st := range stores {
		for _, savers := range []int{1, 8, 64} {
			b.Run(fmt.Sprintf("%s/savers=%d", st.name, savers), func(b *testing.B) {
				benchSaves(b, st.open(b), template, savers)
			})
		}
	}
}

func benchSaves(b *testing.B, s store.Runs, template store.Run, savers int) {
	var next atomic.Int64
	latencies := make([][]time.Duration, savers)
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for w := range savers {
		wg.Go(func() {
			for {
				i := next.Add(1)
				if i > int64(b.N) {
					return
				}
				r := template
				r.ID = fmt.Sprintf("bench-%d-%d", b.N, i)
				t0 := time.Now()
				if _, err := s.SaveRun(context.Background(), r); err != nil {
					b.Error(err)
					return
				}
				latencies[w] = append(latencies[w], time.Since(t0))
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	all := slices.Concat(latencies...)
	slices.Sort(all)
	if len(all) == 0 {
		return
	}
	b.ReportMetric(float64(len(all))/elapsed.Seconds(), "saves/s")
	b.ReportMetric(float64(all[len(all)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(0, "ns/op") // the figures above say more than time per save
}

// sampleRun is paused-worker as the server saves it.
func sampleRun(b *testing.B) store.Run {
	library, err := lab.LoadLibrary(scenarios.FS, scenarios.Order())
	if err != nil {
		b.Fatal(err)
	}
	builtin, _ := library.Get("paused-worker")
	canonical, err := json.Marshal(builtin.Scenario)
	if err != nil {
		b.Fatal(err)
	}
	trace, err := json.Marshal(lab.Replay(builtin.Scenario))
	if err != nil {
		b.Fatal(err)
	}
	return store.Run{Title: builtin.Scenario.Title, Scenario: canonical, Trace: trace, EngineVersion: lab.Version}
}
