package main

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

	"fencelab/lab/logs"
	"fencelab/views/paths"
)

// postImport saves an import at the fencelab server at base (POST
// /api/imports) and returns the link of the saved run.
func postImport(ctx context.Context, base string, res *logs.Result, files []string) (string, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("--save %q is not an http:// or https:// URL", base)
	}
	body, err := json.Marshal(map[string]any{"scenario": res.Scenario, "import": logs.ForSaving(res, files)})
	if err != nil {
		return "", err
	}
	endpoint := strings.TrimRight(base, "/") + paths.RouteAPIImports
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
