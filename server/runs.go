package server

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"fencelab/lab"
	"fencelab/server/store"
	"fencelab/views"
	"fencelab/views/diagram"
	"fencelab/views/paths"
)

// idLen is the length of a run id: 16 base64url characters, 96 bits.
const idLen = 16

// handleSaveRunForm saves the posted scenario and sends the browser to its link.
func (s *Server) handleSaveRunForm(c echo.Context) error {
	return s.saveForm(c, func(id string, kept []lab.Policy) string { return paths.Link(paths.RunPath(id), "", kept) })
}

// saveForm saves the scenario a form posts and sends the browser to
// target(its id, the policies the form's link keeps).
func (s *Server) saveForm(c echo.Context, target func(id string, kept []lab.Policy) string) error {
	_, sc, err := parseForm(c)
	if err != nil {
		return err
	}
	run, err := s.save(c, sc)
	if err != nil {
		return err
	}
	return seeOther(c, target(run.ID, queryOf(c.Request().PostForm).kept()))
}

// savedJSON answers POST /api/runs.
type savedJSON struct {
	ID  string `json:"id"`
	URL string `json:"url"`
}

func (s *Server) handleAPISaveRun(c echo.Context) error {
	sc, err := parseBody(c)
	if err != nil {
		return err
	}
	run, err := s.save(c, sc)
	if err != nil {
		return err
	}
	link := s.absURL(c, paths.RunPath(run.ID))
	c.Response().Header().Set(echo.HeaderLocation, link)
	return writeJSON(c, http.StatusCreated, savedJSON{ID: run.ID, URL: link})
}

// save replays a valid scenario and keeps it with its trace under its id.
func (s *Server) save(c echo.Context, sc *lab.Scenario) (store.Run, error) {
	canonical, err := json.Marshal(sc)
	if err != nil {
		return store.Run{}, fmt.Errorf("encode scenario: %w", err)
	}
	run := store.Run{ID: s.runID(canonical), Title: sc.Title, Scenario: canonical, EngineVersion: lab.Version}
	estimate := runBytes(run) + minTraceBytes*len(sc.Events)
	return s.keepEstimated(c, run, estimate, func(r *store.Run) { r.Trace = lab.Replay(sc).AppendJSON(nil) })
}

// minTraceBytes is less than any event's part of a trace (about 1.2 KB
// each, measured on the built-ins and on 500 events): what a run will
// add at least, before its scenario is replayed.
const minTraceBytes = 256

// keep stores run for the client of c, unless it is stored already: run
// ids are content-addressed, so the same scenario saved again is the
// stored run, costs the client nothing, and answers 410 when hidden. A new
// run is completed by fill (the replay, which a client past its budget
// is refused before), charged to the client's budgets, and given back if
// the store then fails.
func (s *Server) keep(c echo.Context, run store.Run, fill func(*store.Run)) (store.Run, error) {
	return s.keepEstimated(c, run, runBytes(run), fill)
}

// keepEstimated is keep of a run that will add at least estimate bytes
// once filled: one the store has no room for is refused before fill.
func (s *Server) keepEstimated(c echo.Context, run store.Run, estimate int, fill func(*store.Run)) (store.Run, error) {
	ctx := c.Request().Context()
	stored, err := s.runByID(ctx, run.ID)
	if !errors.Is(err, store.ErrNotFound) {
		return stored, err
	}
	if over := s.spent(c); over != nil {
		return store.Run{}, s.refuse(c, over)
	}
	if err := s.size.precheck(ctx, estimate); err != nil {
		s.metrics.refusedBy("store_size")
		return store.Run{}, s.hold(c, err)
	}
	if fill != nil {
		fill(&run)
	}
	run.Client = clientKey(c) // for `fencelab admin purge --client`
	n := runBytes(run)
	settle, err := s.admit(c, n)
	if err != nil {
		return store.Run{}, err
	}
	start := time.Now()
	stored, err = s.store.SaveRun(ctx, run)
	s.metrics.saveTook(time.Since(start))
	settle(err == nil)
	if err != nil {
		return store.Run{}, fmt.Errorf("save run %s: %w", run.ID, err)
	}
	return stored, nil
}

// withinBudget guards a route that saves: a client with no save or byte
// left is refused before its body is read, so that flooding costs the
// server next to nothing, and a client's saves beyond Limits.SavesAtOnce
// wait their turn. A run it had saved before would have cost it
// nothing, but cannot be told without reading the body: it is refused
// too, until the client's budget refills.
func (s *Server) withinBudget(h echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		key := clientKey(c)
		if over := s.spent(c); over != nil {
			return s.refuse(c, over)
		}
		done, err := s.budgets.turn(c.Request().Context(), key)
		if err != nil {
			return err
		}
		defer done()
		return h(c)
	}
}

// spent is the refusal of a save from a client, or its network, with no
// save or byte left; nil when both have.
func (s *Server) spent(c echo.Context) *refusal {
	if over := s.budgets.spent(clientKey(c)); over != nil {
		return over
	}
	return s.networks.spent(networkKey(c))
}

// refuse answers a request over a client's budget: counted, with the
// seconds to wait, after a moment. A flood over many connections waits
// for each answer before its next request: held a second, it sends one
// request a second per connection instead of hundreds, and a waiting
// request costs no core.
func (s *Server) refuse(c echo.Context, over *refusal) error {
	s.metrics.refusedBy(over.limit)
	over.retryAfter(c)
	s.wait(c, min(over.retry, s.budgets.delay))
	return over
}

// hold answers err, a refusal for the store's size, after the same moment
// as a refusal for a budget, for the same reason.
func (s *Server) hold(c echo.Context, err error) error {
	s.wait(c, s.budgets.delay)
	return err
}

// wait waits d, or until the client leaves; in a computing request's
// turn, it leaves d to be waited once the turn is given back (inTurn).
func (s *Server) wait(c echo.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	if later, ok := c.Get(delayKey).(*time.Duration); ok && later != nil {
		*later = max(*later, d)
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-c.Request().Context().Done():
	}
}

// admit charges a new run of n bytes to the client's budgets and its
// network's, and checks that the store has room for it, or says which
// limit it is over. settle says whether the run was then saved: if not,
// the charges are given back.
func (s *Server) admit(c echo.Context, n int) (settle func(saved bool), err error) {
	undoClient, over := s.budgets.takeSave(clientKey(c), n)
	if over != nil {
		return nil, s.refuse(c, over)
	}
	undoNet, over := s.networks.takeSave(networkKey(c), n)
	if over != nil {
		undoClient()
		return nil, s.refuse(c, over)
	}
	settleSize, err := s.checkSize(c, n)
	if err != nil {
		undoClient()
		undoNet()
		return nil, err
	}
	return func(saved bool) {
		settleSize(saved)
		if !saved {
			undoClient()
			undoNet()
		}
	}, nil
}

// checkSize checks that the store has room for n more bytes from the
// client of c (see storeSize.check).
func (s *Server) checkSize(c echo.Context, n int) (settle func(written bool), err error) {
	key := networkKey(c)
	settle, err = s.size.check(c.Request().Context(), n, func(n int) (func(), bool) { return s.networks.takeReserve(key, n) })
	if err != nil {
		s.metrics.refusedBy("store_size")
		return nil, s.hold(c, err)
	}
	return settle, nil
}

// runBytes is what a run adds to the store, as a client's byte budget
// counts it.
func runBytes(r store.Run) int {
	return len(r.ID) + len(r.Title) + len(r.Scenario) + len(r.Trace) + len(r.Observed) + len(r.EngineVersion)
}

// runID is a keyed hash of the canonical scenario and the engine version:
// the same scenario saved twice on one engine gets the same link, and
// without the secret nobody can guess one.
func (s *Server) runID(canonical []byte) string {
	mac := hmac.New(sha256.New, s.secret)
	mac.Write(canonical)
	mac.Write([]byte(lab.Version))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))[:idLen]
}

// validID reports whether id could be a run id at all, so that anything
// else is a 404 without a query.
func validID(id string) bool {
	if len(id) != idLen {
		return false
	}
	for _, r := range id {
		ok := 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-' || r == '_'
		if !ok {
			return false
		}
	}
	return true
}

// runByID loads the saved run id for a page that names it elsewhere than
// in its path (?from=, a room, an oEmbed URL): it asks whether the run
// was taken down, as shown does for the routes of one run.
func (s *Server) runByID(ctx context.Context, id string) (store.Run, error) {
	if !validID(id) {
		return store.Run{}, store.ErrNotFound
	}
	if err := s.checkShown(ctx, id); err != nil {
		return store.Run{}, err
	}
	return s.storedRun(ctx, id)
}

// storedRun reads the saved run id from the store, once its takedown has
// been checked; an id that cannot be one is not looked up.
func (s *Server) storedRun(ctx context.Context, id string) (store.Run, error) {
	if !validID(id) {
		return store.Run{}, store.ErrNotFound
	}
	run, err := s.store.Run(ctx, id)
	if err != nil {
		return store.Run{}, fmt.Errorf("load run %s: %w", id, err)
	}
	return run, nil
}

func (s *Server) handleRunPage(c echo.Context) error {
	sr, err := s.loadSaved(c)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.Run(s.runPage(c, sr)))
}

// runPage is the page of a saved run: its table and diagram under the
// query's policies (a saved probe's, without ?p=, under the policy its
// receiver claims), what the probe or the logs saw, the link preview and
// the embed's snippet, from one report.
func (s *Server) runPage(c echo.Context, sr *savedRun) views.RunPage {
	q := s.query(c)
	observed := observedView(sr)
	if observed != nil && !q.Asked {
		q = q.withPolicies([]lab.Policy{observed.Policy}) // the policy the receiver claims
	}
	report := sr.report(q.Policies)
	report.Unknown, report.UnknownMore = q.Unknown, q.UnknownMore
	if observed != nil {
		report.ModelNote = observed.ModelNote()
	}
	path := paths.RunPath(sr.Run.ID)
	link := s.query(c).link(path) // the address as asked: a claimed policy is the page's default, not a choice to keep
	lesson, alt := views.VerdictsLine(sr.Trace, q.Policies), s.cardAlt(c, sr.Scenario, sr.Trace)
	if sr.Imported != nil {
		lesson, alt = importedLesson(sr.Imported), diagram.ImportedAlt(sr.Scenario, sr.Trace, q.Diagram, report.Imported)
	}
	embed := q.embed()
	return views.RunPage{
		Report:        report,
		Observed:      observed,
		Imported:      importedView(sr),
		Diagram:       q.Diagram,
		Share:         s.share(sr.Scenario.Title, lesson, link, pictureOf(link), alt),
		ID:            sr.Run.ID,
		URL:           s.absURL(c, path),
		EngineVersion: sr.Run.EngineVersion,
		CreatedAt:     sr.Run.CreatedAt,
		Source:        string(sr.Run.Scenario),
		Drift:         s.drifts.of(sr.Run),
		Embed: embedHTML(s.absURL(c, embed.link(paths.EmbedPathOf(path))), sr.Scenario.Title, embedWidth,
			views.EmbedHeight(report.Only(embedPolicies), embed.Diagram, sr.kind(), embedWidth)),
	}
}

// runJSON answers GET /api/runs/{id}: the scenario and trace as stored.
type runJSON struct {
	ID            string          `json:"id"`
	Scenario      json.RawMessage `json:"scenario"`
	Trace         json.RawMessage `json:"trace"`
	EngineVersion string          `json:"engine_version"`
	CreatedAt     time.Time       `json:"created_at"`
	// Observed is what a probe saw the receiver do, for a run it saved.
	Observed json.RawMessage `json:"observed,omitempty"`
}

func (s *Server) handleAPIRun(c echo.Context) error {
	run, err := s.storedRun(c.Request().Context(), c.Param("id"))
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, runJSON{
		ID: run.ID, Scenario: run.Scenario, Trace: run.Trace,
		EngineVersion: run.EngineVersion, CreatedAt: run.CreatedAt.UTC(), Observed: run.Observed,
	})
}
