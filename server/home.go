package server

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"fencelab/views"
)

// sampleName is the built-in the front page's form starts with.
const sampleName = "paused-worker"

func (s *Server) handleHome(c echo.Context) error {
	page := views.HomePage{Builtins: s.library.List}
	if b, ok := s.library.Get(sampleName); ok {
		page.Sample = string(b.Source)
	}
	return render(c, http.StatusOK, views.Home(page))
}
