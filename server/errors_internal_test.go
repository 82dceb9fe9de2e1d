package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"fencelab/server/store"
	"fencelab/views"
)

// TestErrorPageFailing: when the error page itself fails to render, the
// client still gets the error's status and words, not an empty 200.
func TestErrorPageFailing(t *testing.T) {
	errorView = func(views.ErrorPage) templ.Component {
		return templ.ComponentFunc(func(context.Context, io.Writer) error { return errors.New("broken page (test)") })
	}
	t.Cleanup(func() { errorView = views.Error })
	var log bytes.Buffer
	s := &Server{log: slog.New(slog.NewTextHandler(&log, nil))}
	e := echo.New()
	rec := httptest.NewRecorder()
	c := e.NewContext(httptest.NewRequest(http.MethodGet, "/r/nothing", nil), rec)
	s.handleError(fmt.Errorf("load: %w", store.ErrNotFound), c)
	if rec.Code != http.StatusNotFound {
		t.Errorf("status = %d, want 404", rec.Code)
	}
	if body := rec.Body.String(); !strings.Contains(body, "There is no saved run at this address.") {
		t.Errorf("body = %q, want the error's message", body)
	}
	if !strings.Contains(log.String(), "broken page (test)") {
		t.Errorf("log = %q, want the render failure", log.String())
	}
}

// TestBusyWrapped: a refused exploration gets its Retry-After also when
// the error comes wrapped.
func TestBusyWrapped(t *testing.T) {
	rec := httptest.NewRecorder()
	c := echo.New().NewContext(httptest.NewRequest(http.MethodPost, "/api/explore", nil), rec)
	if err := busy(c, fmt.Errorf("explore: %w", errBusy)); !errors.Is(err, errBusy) {
		t.Fatalf("busy returned %v, want errBusy", err)
	}
	if rec.Header().Get("Retry-After") == "" {
		t.Errorf("no Retry-After on a wrapped errBusy")
	}
}

// TestStoreProblems: every code of the store's error is answered from the
// one table, with its status, also when wrapped; a room error is no
// different from a run's.
func TestStoreProblems(t *testing.T) {
	tests := []struct {
		err    error
		status int
		words  string
	}{
		{store.ErrNotFound, http.StatusNotFound, "no saved run"},
		{store.ErrNoRoom, http.StatusNotFound, "no live room"},
		{store.ErrNoQuestion, http.StatusConflict, "No question was asked"},
		{store.ErrAnswered, http.StatusConflict, "answered"},
		{store.ErrCodeTaken, http.StatusServiceUnavailable, "room code"},
		{store.ErrNoHandover, http.StatusForbidden, "hand-over code"},
		{store.ErrUnavailable, http.StatusServiceUnavailable, "cannot be reached"},
		{store.ErrFull, http.StatusInsufficientStorage, "no room left"},
		{store.ErrGone, http.StatusGone, "taken down by the lab’s operators."},
	}
	if len(tests) != len(storeProblems) {
		t.Errorf("the test covers %d codes, storeProblems answers %d", len(tests), len(storeProblems))
	}
	for _, tt := range tests {
		t.Run(tt.err.Error(), func(t *testing.T) {
			s := &Server{log: slog.New(slog.NewTextHandler(io.Discard, nil))}
			rec := httptest.NewRecorder()
			c := echo.New().NewContext(httptest.NewRequest(http.MethodGet, "/api/runs/x", nil), rec)
			s.handleError(fmt.Errorf("some operation: %w", tt.err), c)
			if rec.Code != tt.status || !strings.Contains(rec.Body.String(), tt.words) {
				t.Errorf("handleError(wrapped %v) = %d %s, want %d saying %q", tt.err, rec.Code, rec.Body, tt.status, tt.words)
			}
		})
	}
}
