package logs

import (
	"bufio"
	"bytes"
	"io"
	"slices"
	"sort"
	"strings"

	"fencelab/lab"
)

// Survey is what a first look at some logs found: their format, their
// fields, and a few distinct values of each, for offering a mapping.
type Survey struct {
	Formats []Format            // per file
	Fields  []string            // every field seen, sorted
	Values  map[string][]string // per field, its first distinct values
	// Binary names each file that is not text, as "file:1: …", so that a
	// page can say why it found no field.
	Binary []string
}

// Limits of a survey, so that it stays small whatever the logs.
const (
	surveyValues   = 40  // distinct values kept per field
	surveyValueLen = 80  // longer values are not offered
	surveyFields   = 200 // fields kept
)

// NewSurvey returns an empty survey to Add files to.
func NewSurvey() *Survey { return &Survey{Values: map[string][]string{}} }

// Add reads the lines of the file called name; format "" detects it.
// Lines that do not parse are skipped: the import reports them.
func (s *Survey) Add(name string, r io.Reader, format Format) {
	lr := &lineReader{br: bufio.NewReaderSize(r, MaxLine)}
	f := &fileState{format: format}
	for {
		line, err := lr.next()
		if err == io.EOF || (err != nil && err != errTooLong) {
			break
		}
		if err != nil || len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if textProblem(line) != "" {
			if f.format == "" {
				s.Binary = append(s.Binary, name+":1: binary data, not a log of JSON Lines, logfmt or CSV")
				break
			}
			continue
		}
		if f.format == "" {
			f.format = detect(line)
		}
		if f.format == CSV && f.header == nil {
			f.header, _ = csvHeader(line)
			continue
		}
		if rec, err := f.parse(line); err == nil {
			s.record(rec)
		}
	}
	s.Formats = append(s.Formats, f.format)
	sort.Strings(s.Fields)
}

func (s *Survey) record(rec record) {
	for _, k := range rec.keys() {
		s.field(k, rec)
		if jr, ok := rec.(jsonRecord); ok {
			s.nested(k, jr[k])
		}
	}
}

// nested surveys the fields of a nested JSON object by their dotted paths.
func (s *Survey) nested(prefix string, v any) {
	m, ok := v.(map[string]any)
	if !ok {
		return
	}
	for k, sub := range m {
		path := prefix + "." + k
		if val, ok := scalar(sub); ok {
			s.value(path, val)
		}
		s.nested(path, sub)
	}
}

func (s *Survey) field(k string, rec record) {
	if v, ok := rec.get(k); ok {
		s.value(k, v)
	}
}

func (s *Survey) value(k, v string) {
	vals, known := s.Values[k]
	if !known {
		if len(s.Values) >= surveyFields {
			return
		}
		s.Fields = append(s.Fields, k)
	}
	if len(vals) < surveyValues && len(v) <= surveyValueLen && v != "" && !slices.Contains(vals, v) {
		vals = append(vals, v)
	}
	s.Values[k] = vals
}

// Common field names, most likely first, for Suggest.
var common = map[string][]string{
	"time":     {"ts", "time", "timestamp", "@timestamp", "t", "date"},
	"actor":    {"worker", "actor", "pod", "holder", "client", "owner", "instance"},
	"kind":     {"msg", "message", "event", "action", "evt"},
	"token":    {"generation", "token", "fencing_token", "lease.generation", "fence", "epoch", "gen"},
	"scope":    {"job_id", "job", "scope", "lock", "lease", "lease_name", "lock_name"},
	"resource": {"resource", "key", "object", "table", "file"},
	"value":    {"result", "value", "data", "payload"},
	"request":  {"request_id", "req_id", "request", "rid", "requestId"},
	"op":       {"op_key", "op", "idempotency_key", "operation_id"},
	"observed": {"outcome", "status", "decision", "verdict"},
	"host":     {"host", "hostname", "service", "source"},
}

// Suggest offers a mapping from the common field names the logs use, and
// the kind and outcome of each value whose words say it.
func (s *Survey) Suggest() *Mapping {
	m := &Mapping{}
	pick := func(what string) string {
		for _, name := range common[what] {
			if _, ok := s.Values[name]; ok {
				return name
			}
		}
		return ""
	}
	m.Time, m.Actor, m.Token, m.Scope = pick("time"), pick("actor"), pick("token"), pick("scope")
	m.Resource, m.Value, m.Request, m.Op, m.Host = pick("resource"), pick("value"), pick("request"), pick("op"), pick("host")
	m.Kind = KindMap{Field: pick("kind"), Values: map[string]lab.Kind{}}
	for _, v := range s.Values[m.Kind.Field] {
		if k := GuessKind(v); k != "" {
			m.Kind.Values[v] = k
		}
	}
	if f := pick("observed"); f != "" {
		m.Observed = &ObsMap{Field: f, Values: map[string]Outcome{}}
		for _, v := range s.Values[f] {
			if o := GuessOutcome(v); o != "" {
				m.Observed.Values[v] = o
			}
		}
	}
	return m
}

// kindWords maps words of log messages to kinds, the more specific first
// ("write sent" is a send, "write received" a deliver).
var kindWords = []struct {
	word string
	kind lab.Kind
}{
	{"sent", lab.Send}, {"send", lab.Send}, {"receiv", lab.Deliver}, {"deliver", lab.Deliver},
	{"commit", lab.Commit}, {"grant", lab.Acquire}, {"acquir", lab.Acquire}, {"renew", lab.Renew},
	{"expir", lab.Expire}, {"releas", lab.Release}, {"resum", lab.Resume}, {"pause", lab.Pause},
	{"check", lab.Check}, {"restart", lab.Restart}, {"crash", lab.Crash}, {"read", lab.Read},
	{"write", lab.Write},
}

// GuessKind is the kind a log message's words suggest, or "".
func GuessKind(msg string) lab.Kind {
	m := strings.ToLower(msg)
	for _, w := range kindWords {
		if strings.Contains(m, w.word) {
			return w.kind
		}
	}
	return ""
}

// GuessOutcome is the observed outcome a status word suggests, or "".
func GuessOutcome(v string) Outcome {
	switch strings.ToLower(v) {
	case "accepted", "applied", "ok", "success", "committed", "written":
		return Applied
	case "rejected", "denied", "stale", "conflict", "fenced", "refused":
		return Rejected
	case "duplicate", "deduplicated", "suppressed", "ignored":
		return Suppressed
	}
	return ""
}
