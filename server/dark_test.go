package server_test

import (
	"net/http"
	"strings"
	"testing"

	"fencelab/views/paths"
)

// TestDarkModePages: the pages whose stylesheets follow site.css's
// colours may turn dark (no light-only class on <html>), the import page
// and the editor among them; the presentation keeps its light colours.
func TestDarkModePages(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	for path, dark := range map[string]bool{
		paths.RouteImport:                   true,
		paths.ScenarioPath("paused-worker"): true,
		paths.RouteEditor:                   true,
		paths.PresentPathOf(paths.ScenarioPath("paused-worker")): false,
	} {
		res := get(t, s, path)
		if res.Code != http.StatusOK {
			t.Fatalf("GET %s: %d", path, res.Code)
		}
		light := strings.Contains(res.Body.String(), `<html lang="en" class="light-only"`)
		if light == dark {
			t.Errorf("GET %s: light-only is %v, want the page to turn dark: %v", path, light, dark)
		}
	}
}
