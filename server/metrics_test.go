package server_test

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"

	"fencelab/server"
)

// TestMetrics: after a save, a refused save, a page and a missing page,
// the metrics name each family the operations guide lists, count the
// requests by route pattern and status, and the refusal by its limit.
// With FENCELAB_METRICS_OUT set, the exposition is written there for
// `promtool check metrics` (.ci/run does).
func TestMetrics(t *testing.T) {
	t.Parallel()
	srv := limitedServer(t, server.Limits{Saves: 1, SavesPerHour: 1, MaxStoreSize: 1 << 30})
	saveFrom(srv, "198.51.100.1", titled(t, "paused-worker", "one"))
	saveFrom(srv, "198.51.100.1", titled(t, "paused-worker", "two"))
	plainGet(srv, "/scenarios/paused-worker")
	plainGet(srv, "/no-such-page")
	srv.ObserveSaveGroup(3)
	rec := plainGet(srv.Metrics(), "/metrics")
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /metrics = %d, want 200", rec.Code)
	}
	body := rec.Body.String()
	if out := os.Getenv("FENCELAB_METRICS_OUT"); out != "" {
		if err := os.WriteFile(out, rec.Body.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []string{
		`fencelab_http_requests_total{code="201",route="/api/runs"} 1`,
		`fencelab_http_requests_total{code="429",route="/api/runs"} 1`,
		`fencelab_http_requests_total{code="200",route="/scenarios/:name"} 1`,
		`fencelab_http_requests_total{code="404",route="unmatched"} 1`,
		`fencelab_saves_refused_total{limit="saves"} 1`,
		`fencelab_saves_refused_total{limit="store_size"} 0`,
		"fencelab_save_duration_seconds_count 1",
		"fencelab_save_group_size_count 1",
		`fencelab_store_errors_total{error="unavailable"} 0`,
		"fencelab_explorations_running 0",
		"fencelab_explorations_waiting 0",
		`fencelab_explorations_refused_total{reason="busy"} 0`,
		"fencelab_imports_running 0",
		"fencelab_imports_waiting 0",
		`fencelab_imports_refused_total{reason="busy"} 0`,
		"fencelab_work_running 0",
		"fencelab_work_waiting 0",
		`fencelab_work_refused_total{reason="over_share"} 0`,
		"fencelab_rooms_connected 0",
		"fencelab_room_phones 0",
		"fencelab_rooms_created_total 0",
		fmt.Sprintf("fencelab_store_size_limit_bytes %g", float64(1<<30)),
		"fencelab_store_size_bytes ",
		"go_goroutines ",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("GET /metrics has no line %q", want)
		}
	}
}
