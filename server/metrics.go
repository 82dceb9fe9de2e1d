package server

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"fencelab/server/store"
)

// metrics are what the server tells Prometheus, in its own registry so
// that two servers in one process (the tests) do not collide. The names
// and every label value are listed in docs/operations.md.
type metrics struct {
	reg          *prometheus.Registry
	requests     *prometheus.CounterVec // by route pattern and status
	saveSeconds  prometheus.Histogram
	saveGroup    prometheus.Histogram
	refused      *prometheus.CounterVec // by limit
	storeErrors  *prometheus.CounterVec // by store error code
	roomsCreated prometheus.Counter
	spoolFailed  prometheus.Counter
}

func newMetrics(s *Server) *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "fencelab_http_requests_total",
		Help: "HTTP requests answered, by route pattern (unmatched for none) and status code."}, []string{"route", "code"})
	m.saveSeconds = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "fencelab_save_duration_seconds",
		Help:    "Time the store took to save a new run durably, failures included.",
		Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}})
	m.saveGroup = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "fencelab_save_group_size",
		Help:    "Saves committed together in one transaction by the SQLite writer.",
		Buckets: prometheus.ExponentialBuckets(1, 2, 9)}) // 1 to 256, the writer's largest group
	m.refused = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "fencelab_saves_refused_total",
		Help: "Saves, live rooms, answers and room codes refused by a limit: saves, bytes, rooms, answers or " +
			"join (a client's or its network's budget, 429), store_size (507)."},
		[]string{"limit"})
	m.storeErrors = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "fencelab_store_errors_total",
		Help: "Requests that failed on the store, by what went wrong: unavailable, full or other."}, []string{"error"})
	m.roomsCreated = prometheus.NewCounter(prometheus.CounterOpts{Name: "fencelab_rooms_created_total",
		Help: "Live rooms created through this server."})
	for _, limit := range []string{"saves", "bytes", "rooms", "answers", "join", "store_size"} {
		m.refused.WithLabelValues(limit) // present at 0, so that rate() sees the first one
	}
	for _, e := range []string{"unavailable", "full", "other"} {
		m.storeErrors.WithLabelValues(e)
	}
	m.spoolFailed = prometheus.NewCounter(prometheus.CounterOpts{Name: "fencelab_import_spool_failures_total",
		Help: "Imports refused (507) because the temporary directory had no room for their logs."})
	m.reg.MustRegister(m.requests, m.saveSeconds, m.saveGroup, m.refused, m.storeErrors, m.roomsCreated, m.spoolFailed,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.reg.MustRegister(s.gauges()...)
	return m
}

// gauges are the metrics read when Prometheus scrapes.
func (s *Server) gauges() []prometheus.Collector {
	gauge := func(name, help string, f func() float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, f)
	}
	counter := func(name, help string, labels prometheus.Labels, f func() float64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help, ConstLabels: labels}, f)
	}
	const importsRefusedHelp = "Imports refused after waiting for their turn: busy when no slot came free (503), " +
		"one_per_client when the client's own import was still running (429)."
	const workRefusedHelp = "Requests that replay a scenario refused after waiting 10 s for their turn: busy when no " +
		"slot came free (503), over_share behind their client's or network's own (429)."
	const refusedHelp = "Explorations refused: busy when every slot was taken (503), one_per_client when the " +
		"client's own was still running (429)."
	return []prometheus.Collector{
		gauge(
			"fencelab_explorations_running",
			"Explorations running now.",
			func() float64 { r, _ := s.explorations.counts(); return float64(r) },
		),
		gauge("fencelab_explorations_waiting", "Requests waiting for an identical exploration another request started.",
			func() float64 { _, w := s.explorations.counts(); return float64(w) }),
		counter("fencelab_explorations_refused_total", refusedHelp, prometheus.Labels{"reason": "busy"},
			func() float64 { return float64(s.explorations.refusedBusy.Load()) }),
		counter("fencelab_explorations_refused_total", refusedHelp, prometheus.Labels{"reason": "one_per_client"},
			func() float64 { return float64(s.explorations.refusedShare.Load()) }),
		gauge("fencelab_imports_running", "Imports being read and parsed now (the import page, its preview, saved imports).",
			func() float64 { return float64(s.imports.running()) }),
		gauge("fencelab_imports_waiting", "Imports waiting for their turn: behind their client's own, or for a slot.",
			func() float64 { return float64(s.imports.waiting()) }),
		counter("fencelab_imports_refused_total", importsRefusedHelp, prometheus.Labels{"reason": "busy"},
			func() float64 { return float64(s.importsRefusedBusy.Load()) }),
		counter("fencelab_imports_refused_total", importsRefusedHelp, prometheus.Labels{"reason": "one_per_client"},
			func() float64 { return float64(s.importsRefusedShare.Load()) }),
		gauge("fencelab_work_running", "Requests that replay a scenario (replays, saves, the editor, comparisons) served now.",
			func() float64 { r, _ := s.work.counts(); return float64(r) }),
		gauge("fencelab_work_waiting", "Requests that replay a scenario waiting for their turn.",
			func() float64 { _, w := s.work.counts(); return float64(w) }),
		counter("fencelab_work_refused_total", workRefusedHelp, prometheus.Labels{"reason": "busy"},
			func() float64 { return float64(s.work.refusedBusy.Load()) }),
		counter("fencelab_work_refused_total", workRefusedHelp, prometheus.Labels{"reason": "over_share"},
			func() float64 { return float64(s.work.refusedShare.Load()) }),
		gauge("fencelab_rooms_connected", "Live rooms with at least one phone or presenter connected to this server.",
			func() float64 { r, _ := s.hub.counts(); return float64(r) }),
		gauge("fencelab_room_phones", "Phones connected to live rooms through this server.",
			func() float64 { _, p := s.hub.counts(); return float64(p) }),
		gauge("fencelab_store_size_bytes", "The database's size, measured at most once a second, plus what was saved since.",
			func() float64 { n, _ := s.size.size(context.Background()); return float64(n) }),
		gauge("fencelab_store_size_limit_bytes", "The size past which saves are refused (--max-store-size); 0: no limit.",
			func() float64 { return float64(max(s.size.max, 0)) }),
	}
}

// Metrics serves the metrics in Prometheus's text format, for a listener
// of its own (--metrics-addr): they are for the operators, not the public.
func (s *Server) Metrics() http.Handler {
	return promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{ErrorLog: nil})
}

// ObserveSaveGroup records the size of one group of saves the store
// committed together; the program hooks it to the SQLite writer.
func (s *Server) ObserveSaveGroup(n int) {
	s.metrics.saveGroup.Observe(float64(n))
}

// request counts one answered request under its route's pattern, never
// its path, so that the series stay few.
func (m *metrics) request(route string, status int) {
	if m == nil {
		return
	}
	if route == "" {
		route = "unmatched"
	}
	m.requests.WithLabelValues(route, strconv.Itoa(status)).Inc()
}

// A nil *metrics counts nothing: tests build a bare Server.

func (m *metrics) saveTook(d time.Duration) {
	if m != nil {
		m.saveSeconds.Observe(d.Seconds())
	}
}

func (m *metrics) refusedBy(limit string) {
	if m != nil {
		m.refused.WithLabelValues(limit).Inc()
	}
}

// storeError counts a request that failed on the store.
func (m *metrics) storeError(code store.Code) {
	if m == nil {
		return
	}
	switch code {
	case store.Unavailable:
		m.storeErrors.WithLabelValues("unavailable").Inc()
	case store.Full:
		m.storeErrors.WithLabelValues("full").Inc()
	default:
		m.storeErrors.WithLabelValues("other").Inc()
	}
}
