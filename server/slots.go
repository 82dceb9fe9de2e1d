package server

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
)

// The import page's turns. An upload of 4 MiB costs about 30 MB while it
// is parsed, and one with --skew explores for up to its deadline, so 128
// at once from one address took 3.8 GB and the cores. Each client (an
// address, an IPv6 /64) imports one at a time, and the server importsAtOnce;
// more wait their turn, in the order they came, for at most turnWait,
// before their body is read. A request's body is read only once it has
// its turn, within importReadTime from then.
const (
	importsAtOnce  = 2
	turnWait       = 10 * time.Second
	importReadTime = 15 * time.Second
)

var (
	errImportBusy = echo.NewHTTPError(http.StatusServiceUnavailable,
		"The server is reading as many logs as it can at once. Please try again in a few seconds.")
	errImportOverShare = echo.NewHTTPError(http.StatusTooManyRequests,
		"An import of yours is still being read: each visitor imports one at a time. Please try again when it has finished.")
)

// importTurn runs h once the client and the server have a free turn.
func (s *Server) importTurn(h echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx, cancel := context.WithTimeout(c.Request().Context(), turnWait)
		defer cancel()
		done, err := s.importers.turn(ctx, clientKey(c))
		if err != nil {
			return s.turnRefused(c, err, errImportOverShare)
		}
		defer done()
		select {
		case s.importSlots <- struct{}{}:
			defer func() { <-s.importSlots }()
		case <-ctx.Done():
			return s.turnRefused(c, ctx.Err(), errImportBusy)
		}
		// The server's read timeout ran while the request waited.
		_ = http.NewResponseController(c.Response()).SetReadDeadline(time.Now().Add(importReadTime))
		return h(c)
	}
}

// turnRefused answers a request that waited for its turn in vain: the
// client's own error when it went away, else refusal with Retry-After.
func (s *Server) turnRefused(c echo.Context, err error, refusal *echo.HTTPError) error {
	if c.Request().Context().Err() != nil {
		return c.Request().Context().Err()
	}
	if errors.Is(err, context.DeadlineExceeded) {
		c.Response().Header().Set("Retry-After", retryAfter)
		return refusal
	}
	return err
}
