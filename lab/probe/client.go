// Package probe plays scenarios at a real receiver over HTTP and compares
// what it does with what the replay model expects, in order, in every
// ordering the explorer follows, or under real concurrency.
package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Client speaks the receiver contract to one base URL.
type Client struct {
	base string
	http *http.Client
}

// NewClient returns a client for the receiver at base with a timeout per
// request. base is an http or https URL; a bare host:port means http.
func NewClient(base string, timeout time.Duration, conns int) (*Client, error) {
	if !strings.Contains(base, "://") {
		base = "http://" + base
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("--target %q is not an http:// or https:// URL", base)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns, tr.MaxIdleConnsPerHost = conns+4, conns+4
	return &Client{base: strings.TrimRight(base, "/"), http: &http.Client{Timeout: timeout, Transport: tr}}, nil
}

// Close drops idle connections.
func (c *Client) Close() { c.http.CloseIdleConnections() }

// UnreachableError is a request that got no answer: refused, timed out,
// a name that does not resolve. The probe cannot go on: exit code 2.
type UnreachableError struct {
	Request string // "POST http://host/writes"
	Err     error
}

func (e *UnreachableError) Error() string {
	var ne net.Error
	var op *net.OpError
	switch {
	case errors.As(e.Err, &ne) && ne.Timeout():
		return fmt.Sprintf("%s: no answer within the timeout (--timeout): is the receiver stuck?", e.Request)
	case errors.As(e.Err, &op) && op.Op == "dial":
		return fmt.Sprintf("%s: cannot connect (%v): is the receiver running at that address?", e.Request, op.Err)
	}
	return fmt.Sprintf("%s: %v", e.Request, e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// ContractError is an answer outside the contract: a 500, a status the
// contract does not allow, a body that is not the JSON it describes.
type ContractError struct {
	Request string
	Problem string
}

func (e *ContractError) Error() string { return e.Request + ": " + e.Problem }

// ErrNotSupported is a 404 or 405 to /grants or /restart: the receiver
// leaves that part of the contract out.
var ErrNotSupported = errors.New("not supported by this receiver")

// Answer is a receiver's answer to a write.
type Answer struct {
	Outcome string `json:"outcome"`
	Reason  string `json:"reason,omitempty"`
	Status  int    `json:"status"`
}

// Holding is what a resource holds, as GET /resources/{name} tells.
// Version is the number of writes it applied, nil when the receiver does
// not say (a receiver that claims cas must).
type Holding struct {
	Value   *string `json:"value"`
	Token   *int64  `json:"token"`
	Version *int64  `json:"version,omitempty"`
	// NoToken: the receiver keeps no token at all (a SQL read without a
	// token column, under cas), so tokens are not compared.
	NoToken bool `json:"-"`
}

// WriteRequest is the body of POST /writes. ExpectVersion is the version
// condition of an rmw write under a policy that checks versions (cas):
// the version its writer knows; nil, and left out of the body, on every
// other write.
type WriteRequest struct {
	Resource      string  `json:"resource"`
	Value         string  `json:"value"`
	Token         *int64  `json:"token"`
	Scope         *string `json:"scope"`
	Op            *string `json:"op"`
	ID            string  `json:"id"`
	ExpectVersion *int64  `json:"expect_version,omitempty"`
	// Writer is the actor writing (A; w3 concurrently), for a SQL
	// receiver's :writer; an HTTP receiver is not sent it.
	Writer string `json:"-"`
}

// Reset empties the receiver.
func (c *Client) Reset(ctx context.Context) error {
	_, _, err := c.do(ctx, http.MethodPost, "/reset", nil, false)
	return err
}

// Write sends one write and reads the receiver's decision.
func (c *Client) Write(ctx context.Context, w WriteRequest) (Answer, error) {
	status, body, err := c.do(ctx, http.MethodPost, "/writes", w, true)
	req := "POST " + c.base + "/writes"
	if err != nil {
		return Answer{Status: status}, err
	}
	a := Answer{Status: status}
	if err := strictJSON(body, &a); err != nil {
		return a, &ContractError{req, fmt.Sprintf("answered %d with %s", status, notJSON(body, err))}
	}
	a.Status = status
	ok := (a.Outcome == "applied" && (status == 200 || status == 201)) ||
		(a.Outcome == "suppressed" && status == 200) || (a.Outcome == "rejected" && status == 409)
	if !ok {
		return a, &ContractError{req, fmt.Sprintf("answered %d with outcome %q; the contract allows 200/201 "+
			"applied, 200 suppressed, 409 rejected", status, a.Outcome)}
	}
	return a, nil
}

// Resource reads what the named resource holds. A 404 is taken as a
// resource that holds nothing yet, as some receivers say it.
func (c *Client) Resource(ctx context.Context, name string) (Holding, error) {
	path := "/resources/" + url.PathEscape(name)
	status, body, err := c.do(ctx, http.MethodGet, path, nil, true)
	if err != nil {
		return Holding{}, err
	}
	var raw struct {
		Value   json.RawMessage `json:"value"`
		Token   json.RawMessage `json:"token"`
		Version json.RawMessage `json:"version"`
	}
	req := "GET " + c.base + path
	if status == http.StatusNotFound {
		return Holding{}, nil // a resource never written: it holds nothing
	}
	if status != 200 {
		return Holding{}, &ContractError{req, fmt.Sprintf("answered %d; the contract says 200", status)}
	}
	if err := strictJSON(body, &raw); err != nil {
		return Holding{}, &ContractError{req, "answered with " + notJSON(body, err)}
	}
	var h Holding
	if err := nullable(raw.Value, &h.Value); err != nil {
		return Holding{}, &ContractError{req, fmt.Sprintf("value must be a string or null, got %s", clip(raw.Value))}
	}
	if err := nullable(raw.Token, &h.Token); err != nil {
		return Holding{}, &ContractError{req, fmt.Sprintf("token must be an integer or null, got %s", clip(raw.Token))}
	}
	if err := nullable(raw.Version, &h.Version); err != nil || h.Version != nil && *h.Version < 0 {
		return Holding{}, &ContractError{req, fmt.Sprintf("version must be a count of writes (an integer, 0 "+
			"or more) or left out, got %s", clip(raw.Version))}
	}
	return h, nil
}

// Grant registers a granted token (fenced-register). ErrNotSupported when
// the receiver answers 404 or 405.
func (c *Client) Grant(ctx context.Context, scope string, token int64) error {
	_, _, err := c.do(ctx, http.MethodPost, "/grants", map[string]any{"scope": scope, "token": token}, false)
	return err
}

// Restart asks the receiver to restart the resource. ErrNotSupported when
// the receiver answers 404 or 405.
func (c *Client) Restart(ctx context.Context, resource string) error {
	_, _, err := c.do(ctx, http.MethodPost, "/restart", map[string]string{"resource": resource}, false)
	return err
}

// do sends one request. With answers set, any status comes back with its
// body for the caller to judge; without, anything but 2xx is an error.
func (c *Client) do(ctx context.Context, method, path string, in any, answers bool) (int, []byte, error) {
	name := method + " " + c.base + path
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return 0, nil, err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return 0, nil, err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, &UnreachableError{name, err}
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return resp.StatusCode, nil, &UnreachableError{name, err}
	}
	code := resp.StatusCode
	switch {
	case !answers && (code == 404 || code == 405) && (path == "/grants" || path == "/restart"):
		return code, out, ErrNotSupported
	case code >= 500 || (!answers && (code < 200 || code > 299)):
		return code, out, &ContractError{name, fmt.Sprintf("answered %d %s%s", code, http.StatusText(code), bodyNote(out))}
	}
	return code, out, nil
}

func strictJSON(b []byte, v any) error {
	if len(bytes.TrimSpace(b)) == 0 {
		return errors.New("empty body")
	}
	return json.Unmarshal(b, v)
}

func nullable[T any](raw json.RawMessage, p **T) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	*p = &v
	return nil
}

func notJSON(b []byte, err error) string {
	if len(bytes.TrimSpace(b)) == 0 {
		return "an empty body, not the JSON the contract describes"
	}
	return fmt.Sprintf("a body that is not the JSON the contract describes (%v): %s", err, clip(b))
}

func bodyNote(b []byte) string {
	if len(bytes.TrimSpace(b)) == 0 {
		return ""
	}
	return ": " + clip(b)
}

// clip shortens a body for a message.
func clip(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return fmt.Sprintf("%q", s)
}
