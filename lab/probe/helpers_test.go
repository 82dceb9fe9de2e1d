package probe_test

import (
	"errors"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"fencelab/lab"
	"fencelab/lab/probe"
	"fencelab/lab/receiver"
	"fencelab/scenarios"

	_ "github.com/mattn/go-sqlite3" // the "sqlite3" driver the SQLite receivers open
)

// startReceiver serves a reference receiver on loopback for the test.
func startReceiver(t testing.TB, store string, opt receiver.Options) string {
	t.Helper()
	var st receiver.Store = receiver.NewMemory(opt)
	if store == "sqlite" {
		db, err := receiver.OpenSQLite(filepath.Join(t.TempDir(), "receiver.db"), opt)
		if err != nil {
			t.Fatal(err)
		}
		st = db
	}
	srv := httptest.NewServer(receiver.Handler(st, opt, slog.New(slog.NewTextHandler(io.Discard, nil))))
	t.Cleanup(func() {
		srv.Close()
		st.Close()
	})
	return srv.URL
}

func newProber(t testing.TB, url string, policy lab.Policy) *probe.Prober {
	t.Helper()
	c, err := probe.NewClient(url, 5*time.Second, 8)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return &probe.Prober{Client: c, Policy: policy, Remember: lab.Durable}
}

func library(t testing.TB) *lab.Library {
	t.Helper()
	lib, err := lab.LoadLibrary(scenarios.FS, scenarios.Order())
	if err != nil {
		t.Fatal(err)
	}
	return lib
}

func builtin(t testing.TB, name string) *lab.Scenario {
	t.Helper()
	b, ok := library(t).Get(name)
	if !ok {
		t.Fatalf("no built-in %q", name)
	}
	return b.Scenario
}

func errorsAs(err error, target any) bool { return errors.As(err, target) }
