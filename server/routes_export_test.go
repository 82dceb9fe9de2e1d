package server

import "github.com/labstack/echo/v4"

// EchoOf is the Echo instance of s, so that the tests of package
// server_test can walk the routes it registered.
func EchoOf(s *Server) *echo.Echo { return s.echo }
