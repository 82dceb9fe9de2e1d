package postgres

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

// serve is the lab's server over runs, for the contract's checks of what a
// broken database looks like from outside. Only the tests import server:
// the adapter itself builds without the web packages.
func serve(t *testing.T, runs store.Runs) http.Handler {
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
