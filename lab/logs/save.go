package logs

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"fencelab/lab"
)

// Saved is what a saved import keeps beside its scenario: what the logs
// say the resource did, each policy's verdict against it, the gaps, the
// clocks and, with a skew, the orderings the clocks allow. Source is
// "import", which tells it from a probe's observation.
type Saved struct {
	Source    string           `json:"source"` // "import"
	Files     []string         `json:"files"`
	Sources   []string         `json:"sources"` // each step's line
	Observed  []Observation    `json:"observed"`
	Against   []Verdict        `json:"against"`
	Gaps      []Gap            `json:"gaps"`
	Clocks    *Clocks          `json:"clocks,omitempty"`
	Inferred  []InferredEvent  `json:"inferred,omitempty"`
	Skew      string           `json:"skew,omitempty"`
	Orderings *lab.Exploration `json:"orderings,omitempty"`
}

// ForSaving is the part of a result a saved run keeps.
func ForSaving(res *Result, files []string) Saved {
	s := Saved{Source: "import", Files: files, Sources: res.Sources, Observed: res.Observed, Against: res.Against,
		Gaps: res.Gaps, Inferred: res.Inferred, Orderings: res.Orderings}
	if len(res.Clocks.Offsets) > 0 || res.Clocks.Contradiction != nil {
		c := res.Clocks
		s.Clocks = &c
	}
	if res.Orderings != nil {
		s.Skew = res.Skew.String()
	}
	return s
}

// Save posts the import to the fencelab server at base and returns the
// link of the saved run.
func Save(ctx context.Context, base string, res *Result, files []string) (string, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("--save %q is not an http:// or https:// URL", base)
	}
	body, err := json.Marshal(map[string]any{"scenario": res.Scenario, "import": ForSaving(res, files)})
	if err != nil {
		return "", err
	}
	endpoint := strings.TrimRight(base, "/") + "/api/imports"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		return "", fmt.Errorf("--save: POST %s: %w", endpoint, err)
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
		return "", fmt.Errorf("--save: POST %s: the server answered %d: %s", endpoint, resp.StatusCode, saved.Error)
	}
	return "", fmt.Errorf("--save: POST %s: the server answered %d; is it a fencelab server?", endpoint, resp.StatusCode)
}
