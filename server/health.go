package server

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
)

// readyTimeout bounds the store check behind /readyz: a load balancer
// polls often and must not queue probes behind a stalled database.
const readyTimeout = 2 * time.Second

// handleHealthz answers while the process serves HTTP at all: a load
// balancer or supervisor restarts a server that stops answering it.
func (s *Server) handleHealthz(c echo.Context) error {
	return c.String(http.StatusOK, "ok\n")
}

// handleReadyz answers 200 when the store can be reached and 503 when it
// cannot, so that a load balancer sends requests elsewhere meanwhile
// without restarting a server that will recover by itself.
func (s *Server) handleReadyz(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), readyTimeout)
	defer cancel()
	if err := s.store.Ping(ctx); err != nil {
		s.log.Warn("not ready", "err", err)
		c.Response().Header().Set("Retry-After", retryAfter)
		return c.String(http.StatusServiceUnavailable, "not ready: the database cannot be reached\n")
	}
	if s.full.recent(time.Now()) {
		c.Response().Header().Set("Retry-After", retryAfter)
		return c.String(http.StatusServiceUnavailable, "not ready: the database's disk is full\n")
	}
	return c.String(http.StatusOK, "ready\n")
}
