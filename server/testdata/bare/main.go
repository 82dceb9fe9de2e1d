// Command bare is the yardstick of the load script (.ci/load): a bare
// Echo v4 server with nothing but a 20 KB HTML page at /page and a hello
// at /hello, so fencelab's figures can be read as ratios of what the
// framework itself does on the same machine in the same run.
package main

import (
	"flag"
	"log"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8090", "listen address")
	flag.Parse()
	page := []byte("<!DOCTYPE html><title>bare</title><table>" +
		strings.Repeat("<tr><td>step</td><td>accepted</td><td>new-result</td></tr>", 20<<10/56) + "</table>")
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.GET("/page", func(c echo.Context) error { return c.HTMLBlob(http.StatusOK, page) })
	e.GET("/hello", func(c echo.Context) error { return c.String(http.StatusOK, "hello") })
	e.POST("/hello", func(c echo.Context) error { return c.String(http.StatusOK, "hello") })
	log.Fatal(e.Start(*addr))
}
