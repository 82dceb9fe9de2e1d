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
	"slices"
	"strings"
	"time"

	"fencelab/lab"
	"fencelab/views/paths"
)

// ErrNothingToSave: every ordering agreed, so there is no ordering to show
// step by step.
var ErrNothingToSave = errors.New("every ordering agreed: there is no ordering to show step by step, so nothing was saved")

// SavedScenario is the scenario a saved observation is shown with: s as
// the probe played it, with the overrides, or the first ordering that
// disagreed, its split writes renamed "write-N".
//
// Its words are true of the resource the probe ran: when Prepare changed
// a resource, the scenario's description stays only as the original's,
// labelled OriginalLabel, after a sentence of what the probe changed, and
// the notes of the events at a changed resource, which may speak of the
// resource as written ("forgets token 42"), are left out.
func (p *Prober) SavedScenario(s *lab.Scenario, r *Result) (*lab.Scenario, error) {
	prepared, changes := Prepare(s, p.Remember)
	if len(changes) > 0 {
		prepared = asProbed(s, prepared, changes)
	}
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
	endpoint := strings.TrimRight(base, "/") + paths.RouteAPIProbes
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

// OriginalLabel begins the paragraph of a saved probe's description that
// holds the scenario's own words, written of the resource before the probe
// changed it; the pages recognize it and set it apart as the original's.
const OriginalLabel = "The scenario's lesson, before the probe's changes:"

// asProbed gives prepared, the scenario as the probe ran it, words true of
// it: a first paragraph of what the probe changed, the scenario's
// description labelled as the original's, and no note on an event at a
// resource the probe changed.
func asProbed(s, prepared *lab.Scenario, changes []string) *lab.Scenario {
	c := *prepared
	changed := map[string]bool{}
	for name, r := range s.Resources {
		if r != prepared.Resources[name] {
			changed[name] = true
		}
	}
	sends := map[string]string{} // a send's id: its resource
	c.Events = slices.Clone(prepared.Events)
	for i, e := range c.Events {
		if e.Kind == lab.Send {
			sends[e.ID] = e.Resource
		}
		res := e.Resource
		if e.Kind == lab.Deliver || e.Kind == lab.Commit {
			res = sends[e.Request]
		}
		if changed[res] {
			c.Events[i].Note = ""
		}
	}
	desc := "As probed, the resources are what the receiver claims to be: " + strings.Join(changes, "; ") + "."
	var own []string
	for _, para := range strings.Split(strings.ReplaceAll(s.Description, "\r\n", "\n"), "\n\n") {
		if para = strings.Join(strings.Fields(para), " "); para != "" {
			own = append(own, para)
		}
	}
	if len(own) > 0 {
		desc += "\n\n" + OriginalLabel + " " + strings.Join(own, " ")
	}
	if r := []rune(desc); len(r) > lab.MaxDescription {
		desc = string(r[:lab.MaxDescription-1]) + "…"
	}
	c.Description = desc
	return &c
}
