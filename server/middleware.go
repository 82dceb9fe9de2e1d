package server

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"runtime/debug"
	"strings"
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
		s.metrics.request(c.Path(), c.Response().Status)
		if s.access == nil {
			return nil
		}
		req, res := c.Request(), c.Response()
		ctx, h := req.Context(), s.access.Handler()
		if !h.Enabled(ctx, slog.LevelInfo) {
			return nil
		}
		// A record without the caller's PC, which the line never shows and
		// slog.Logger would look up for each request.
		end := time.Now()
		r := slog.NewRecord(end, slog.LevelInfo, "request", 0)
		uri := req.URL.RequestURI()
		r.AddAttrs(slog.String("method", req.Method), slog.String("path", clipURI(uri)))
		if len(uri) > maxLoggedURI {
			r.AddAttrs(slog.Int("path_bytes", len(uri)))
		}
		r.AddAttrs(slog.Int("status", res.Status), slog.Int64("bytes", res.Size),
			slog.Duration("duration", end.Sub(start)), slog.String("remote", c.RealIP()))
		_ = h.Handle(ctx, r) // a log that cannot be written is not the client's error
		return nil
	}
}

// maxLoggedURI is the most of a request's path and query the access log
// keeps: a request line may hold 32 KiB, and 8 connections asking for
// /healthz with a 30 KB query wrote 560 MiB of access log in 10 s.
const maxLoggedURI = 512

// clipURI is uri cut to maxLoggedURI bytes, marked when cut (the request
// URI is escaped ASCII: a cut splits no character).
func clipURI(uri string) string {
	if len(uri) <= maxLoggedURI {
		return uri
	}
	return uri[:maxLoggedURI] + "…"
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

// securityHeaderValues are the headers securityHeaders sets, keys in
// canonical form. Every response shares the value slices, which nothing
// changes in place (Header.Set and Add replace or copy them), so setting
// them allocates nothing.
var securityHeaderValues = []struct {
	key   string
	value []string
}{
	{"Content-Security-Policy", []string{contentSecurityPolicy}},
	{"X-Content-Type-Options", []string{"nosniff"}},
	{"X-Frame-Options", []string{"DENY"}},
	{"Referrer-Policy", []string{"same-origin"}},
	{"Cross-Origin-Opener-Policy", []string{"same-origin"}},
	{"Cross-Origin-Resource-Policy", []string{"same-origin"}},
	{"Permissions-Policy", []string{"camera=(), microphone=(), geolocation=()"}},
}

var strictTransportSecurity = []string{"max-age=31536000"}

// securityHeaders go on every response, errors and static files included;
// HSTS too when the lab is reached over TLS (see secure).
func (s *Server) securityHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		for _, f := range securityHeaderValues {
			h[f.key] = f.value
		}
		if s.secure(c) {
			h["Strict-Transport-Security"] = strictTransportSecurity
		}
		return next(c)
	}
}

// secure says whether the client reached the lab over TLS: its own
// connection, or an https --base-url, which a TLS proxy in front serves
// (the proxy's connection to the server is plain HTTP). Cookies are then
// Secure, and HSTS is sent.
func (s *Server) secure(c echo.Context) bool {
	return c.IsTLS() || (s.baseURL != nil && s.baseURL.Scheme == "https")
}

// limitBody refuses a body over maxBody: at once when it says its length,
// else when reading passes the limit (*http.MaxBytesError, a 413).
func limitBody(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		limit, tooLarge := bodyLimit(req.URL.Path)
		if req.ContentLength > limit {
			return tooLarge
		}
		req.Body = http.MaxBytesReader(c.Response(), req.Body, limit)
		return next(c)
	}
}

// errCrossSite refuses a state-changing request that a browser says comes
// from another site: a page elsewhere must not save runs in a visitor's name.
var errCrossSite = echo.NewHTTPError(http.StatusForbidden,
	"This request comes from another site, and only pages of this lab may post here.")

// sameOrigin refuses state-changing requests from another site, through
// net/http's CrossOriginProtection: browsers say where a request comes
// from in Sec-Fetch-Site or Origin, and an Origin must name the host the
// request was sent to; curl and scripts send neither and are let through,
// as they carry no visitor's cookies or trust.
func (s *Server) sameOrigin(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if s.origins.Check(c.Request()) != nil {
			return errCrossSite
		}
		return next(c)
	}
}

// newOrigins is the check sameOrigin makes. The base URL's origin is
// trusted as well, since a proxy in front may pass on another Host.
func newOrigins(base *url.URL) (*http.CrossOriginProtection, error) {
	p := http.NewCrossOriginProtection()
	if base != nil {
		if err := p.AddTrustedOrigin(base.Scheme + "://" + base.Host); err != nil {
			return nil, fmt.Errorf("server: base URL %s as a trusted origin: %w", base, err)
		}
	}
	return p, nil
}

// methods answers OPTIONS like any other method a route does not take:
// 405, with the methods it does take. Echo would answer 204; there is no
// cross-origin use of this API to announce.
func methods(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		allow, routed := c.Get(echo.ContextKeyHeaderAllow).(string)
		var err error
		if routed && c.Request().Method == http.MethodOptions {
			err = echo.ErrMethodNotAllowed
		} else {
			err = next(c)
		}
		if routed && allow != "" {
			allow = strings.TrimPrefix(strings.ReplaceAll(allow, ", OPTIONS", ""), "OPTIONS, ")
			c.Response().Header().Set(echo.HeaderAllow, allow)
		}
		return err
	}
}
