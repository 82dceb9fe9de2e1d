package receiver

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
)

// Handler serves the receiver contract over store: POST /reset, POST
// /writes (with the version condition expect_version under cas, a
// rejection answered 409 like any other), GET /resources/{name}, POST
// /restart, and POST /grants when the receiver claims fenced-register
// (else it answers 404, as a receiver without registration should).
func Handler(store Store, opt Options, log *slog.Logger) http.Handler {
	h := &handler{store: store, opt: opt, log: log}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /reset", h.reset)
	mux.HandleFunc("POST /writes", h.write)
	mux.HandleFunc("GET /resources/{name}", h.resource)
	mux.HandleFunc("POST /restart", h.restart)
	if opt.Policy.Registers() {
		mux.HandleFunc("POST /grants", h.grant)
	}
	return mux
}

type handler struct {
	store Store
	opt   Options
	log   *slog.Logger
}

// maxBody bounds a request body; a write is a few hundred bytes.
const maxBody = 64 << 10

func (h *handler) reset(w http.ResponseWriter, r *http.Request) {
	if err := h.store.Reset(r.Context()); err != nil {
		h.fail(w, "reset", err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (h *handler) write(w http.ResponseWriter, r *http.Request) {
	var in Write
	if !decode(w, r, &in) {
		return
	}
	if in.Resource == "" {
		answer(w, http.StatusBadRequest, errorJSON{"resource: missing"})
		return
	}
	d, err := h.store.Write(r.Context(), in)
	if err != nil {
		h.fail(w, "write", err)
		return
	}
	status := http.StatusOK
	if d.Outcome == Rejected {
		status = http.StatusConflict
	}
	answer(w, status, d)
}

func (h *handler) resource(w http.ResponseWriter, r *http.Request) {
	hold, err := h.store.Resource(r.Context(), r.PathValue("name"))
	if err != nil {
		h.fail(w, "read", err)
		return
	}
	answer(w, http.StatusOK, hold)
}

func (h *handler) grant(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Scope string `json:"scope"`
		Token *int64 `json:"token"`
	}
	if !decode(w, r, &in) {
		return
	}
	if in.Token == nil {
		answer(w, http.StatusBadRequest, errorJSON{"token: missing"})
		return
	}
	if err := h.store.Register(r.Context(), *in.Token); err != nil {
		h.fail(w, "register", err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (h *handler) restart(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Resource string `json:"resource"`
	}
	if !decode(w, r, &in) {
		return
	}
	if err := h.store.Restart(r.Context(), in.Resource); err != nil {
		h.fail(w, "restart", err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

type errorJSON struct {
	Error string `json:"error"`
}

// decode reads a JSON body, answering 400 when it is not one.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	err := json.NewDecoder(io.LimitReader(r.Body, maxBody)).Decode(v)
	if err != nil && !errors.Is(err, io.EOF) {
		answer(w, http.StatusBadRequest, errorJSON{"the body must be a JSON object: " + err.Error()})
		return false
	}
	return true
}

func (h *handler) fail(w http.ResponseWriter, op string, err error) {
	h.log.Error("receiver "+op, "err", err)
	answer(w, http.StatusInternalServerError, errorJSON{op + " failed"})
}

func answer(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}
