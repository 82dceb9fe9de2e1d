package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"fencelab/lab"
)

// ErrNothingToSave: every ordering agreed, so there is no ordering to show
// step by step.
var ErrNothingToSave = errors.New("every ordering agreed: there is no ordering to show step by step, so nothing was saved")

// SavedScenario is the scenario a saved observation is shown with: s as
// the probe played it, with the overrides, or the first ordering that
// disagreed, its split writes renamed "write-N".
func (p *Prober) SavedScenario(s *lab.Scenario, r *Result) (*lab.Scenario, error) {
	prepared, _ := Prepare(s, p.Remember)
	switch {
	case r.Concurrent != nil:
		return nil, errors.New("--save keeps a scenario's steps; the concurrent mode has none")
	case r.Orderings == nil:
		return prepared, nil
	case r.Orderings.FirstOrder == nil:
		return nil, ErrNothingToSave
	}
	x := &lab.Exploration{Events: lab.ExploredEvents(prepared, lab.ExploreOptions{})}
	return x.Reorder(prepared, r.Orderings.FirstOrder)
}

// Save posts the observation to the fencelab server at base and returns
// the link of the saved run.
func Save(ctx context.Context, base string, s *lab.Scenario, r *Result) (string, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("--save %q is not an http:// or https:// URL", base)
	}
	body, err := json.Marshal(map[string]any{"scenario": s, "probe": ForSaving(r)})
	if err != nil {
		return "", err
	}
	endpoint := strings.TrimRight(base, "/") + "/api/probes"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		return "", &UnreachableError{"POST " + endpoint, err}
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var saved struct {
		URL   string `json:"url"`
		Error string `json:"error"`
	}
	json.Unmarshal(out, &saved)
	switch {
	case resp.StatusCode == http.StatusCreated && saved.URL != "":
		return saved.URL, nil
	case saved.Error != "":
		return "", fmt.Errorf("POST %s: the server answered %d: %s", endpoint, resp.StatusCode, saved.Error)
	}
	return "", fmt.Errorf("POST %s: the server answered %d%s; is it a fencelab server?", endpoint, resp.StatusCode, bodyNote(out))
}
