package server

import (
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/labstack/echo/v4"
)

// maxBody bounds every request body: a scenario of 500 events fits easily.
const maxBody = 64 << 10

// contentSecurityPolicy allows scripts, styles and everything else only
// from this origin: no inline script, no inline style, no framing.
const contentSecurityPolicy = "default-src 'self'; object-src 'none'; base-uri 'none'; " +
	"form-action 'self'; frame-ancestors 'none'"

// logRequests writes one access-log line per request, after the error
// handler has written the response, so the status is the one the client
// got. Without an access log it only hands errors to the error handler.
func (s *Server) logRequests(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		if err := next(c); err != nil {
			c.Error(err)
		}
		if s.access == nil {
			return nil
		}
		req, res := c.Request(), c.Response()
		s.access.LogAttrs(req.Context(), slog.LevelInfo, "request",
			slog.String("method", req.Method), slog.String("path", req.URL.RequestURI()),
			slog.Int("status", res.Status), slog.Int64("bytes", res.Size),
			slog.Duration("duration", time.Since(start)), slog.String("remote", c.RealIP()))
		return nil
	}
}

// recoverPanics turns a panic into an error, so the client gets the 500
// page and the log gets the stack.
func (s *Server) recoverPanics(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) (err error) {
		defer func() {
			r := recover()
			if r == nil {
				return
			}
			if r == http.ErrAbortHandler {
				panic(r)
			}
			err = fmt.Errorf("panic: %v\n%s", r, debug.Stack())
		}()
		return next(c)
	}
}

// securityHeaders go on every response, errors and static files included.
func securityHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
		if c.IsTLS() {
			h.Set("Strict-Transport-Security", "max-age=31536000")
		}
		return next(c)
	}
}

// limitBody refuses a body over maxBody: at once when it says its length,
// else when reading passes the limit (*http.MaxBytesError, a 413).
func limitBody(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if req.ContentLength > maxBody {
			return errTooLarge
		}
		req.Body = http.MaxBytesReader(c.Response(), req.Body, maxBody)
		return next(c)
	}
}
