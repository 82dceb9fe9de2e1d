// Package servertest builds the lab's server over a store for the tests
// of packages that may not import the web themselves: the store adapters'
// contract checks what a broken database looks like from outside.
package servertest

import (
	"io"
	"log/slog"
	"net/http"
	"testing"

	"fencelab/lab"
	"fencelab/scenarios"
	"fencelab/server"
	"fencelab/server/store"
)

// New is the lab's server over runs, with the built-in library, the
// store's secret and a log that goes nowhere.
func New(t *testing.T, runs store.Runs) http.Handler {
	t.Helper()
	library, err := lab.LoadLibrary(scenarios.FS, scenarios.Order())
	if err != nil {
		t.Fatal(err)
	}
	secret, err := runs.Secret(t.Context())
	if err != nil {
		t.Fatalf("Secret() error = %v", err)
	}
	srv, err := server.New(server.Config{Store: runs, Library: library, Secret: secret,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}
