package server_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestPastedDiagramSwitch: a pasted scenario has no address, so its
// diagram switch posts the scenario again with the policy chosen.
func TestPastedDiagramSwitch(t *testing.T) {
	t.Parallel()
	h := newTestServer(t)
	form := url.Values{"scenario": {builtinSource(t, "racy-receiver")}, "p": {"fenced", "fenced-racy"}, "d": {"fenced-racy"}}
	rec := postForm(t, h, "/replay", form)
	checkResponse(t, "POST /replay", rec, http.StatusOK, "text/html; charset=utf-8")
	body := rec.Body.String()
	if !strings.Contains(body, `<span class="policy-name">fenced-racy</span>`) {
		t.Errorf("POST /replay with d=fenced-racy: the diagram is not under fenced-racy")
	}
	if !strings.Contains(body, `name="d" value="unfenced"`) || !strings.Contains(body, `action="/replay#diagram"`) {
		t.Errorf("POST /replay: the page offers no switch of the diagram's policy")
	}
}
