package logs

import (
	"bufio"
	"bytes"
	"io"
	"regexp"
	"slices"
	"sort"
	"strings"

	"fencelab/lab"
)

// Survey is what a first look at some logs found: their format, their
// fields, a few distinct values of each, and the distinct message texts,
// for offering a mapping.
type Survey struct {
	Formats []Format            // per file
	Fields  []string            // every field seen, sorted
	Values  map[string][]string // per field, its first distinct values
	// Binary names each file that is not text, as "file:1: …", so that a
	// page can say why it found no field.
	Binary []string
	// Files is each file's look: its format, lines, candidate fields and
	// message texts, in the order added.
	Files []FileSurvey
}

// FileSurvey is the look at one file that --suggest prints.
type FileSurvey struct {
	File       string              `json:"file"`
	Format     Format              `json:"format"`
	Lines      int                 `json:"lines"`
	Candidates map[string][]string `json:"candidates"`
	Messages   []MessageCount      `json:"messages"`
	fields     map[string]bool
	counts     map[string]*MessageCount
}

// MessageCount is a distinct message text (digits and ids made a pattern)
// and how often it appears.
type MessageCount struct {
	Text  string `json:"text"`
	Count int    `json:"count"`
	First string `json:"first"`
	match bool
}

// Limits of a survey, so that it stays small whatever the logs.
const (
	surveyValues   = 40   // distinct values kept per field
	surveyValueLen = 80   // longer values are not offered
	surveyFields   = 200  // fields kept
	surveyMessages = 50   // message rules per file
	surveyTexts    = 2000 // distinct message texts counted per file
)

// NewSurvey returns an empty survey to Add files to.
func NewSurvey() *Survey { return &Survey{Values: map[string][]string{}} }

// Add reads the lines of the file called name; format "" detects it.
// Lines that do not parse are skipped: the import reports them.
func (s *Survey) Add(name string, r io.Reader, format Format) {
	im := New(&Mapping{}, Options{Format: format})
	im.needles = nil
	f := &fileState{name: name, base: name, formats: nil}
	if format != "" {
		f.formats = Formats{format}
	}
	fs := FileSurvey{File: name, Candidates: map[string][]string{}, fields: map[string]bool{}, counts: map[string]*MessageCount{}}
	lr := &lineReader{br: bufio.NewReaderSize(r, MaxLine)}
	var sample [][]byte
	read := func(line []byte, n int) {
		if len(f.formats) == 1 && f.formats[0] == CSV && f.header == nil {
			f.header, _ = csvHeader(line)
			return
		}
		rec, got, err := im.parse(f, line)
		if err != nil {
			return
		}
		lr := im.lineRules(f, got)
		lr.restFields(rec)
		s.record(rec, &fs)
		if msg, ok := lr.fact(rec, "message", nil); ok {
			fs.message(msg, name, n)
		}
	}
	var ns []int
	for {
		line, err := lr.next()
		if err == io.EOF || (err != nil && err != errTooLong) {
			break
		}
		fs.Lines++
		if err != nil || len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if textProblem(line) != "" {
			if len(sample) == 0 && f.formats == nil {
				s.Binary = append(s.Binary, name+":1: binary data, not a log of text lines")
				break
			}
			continue
		}
		if f.formats == nil {
			sample, ns = append(sample, bytes.Clone(line)), append(ns, lr.n)
			if len(sample) < sampleLines {
				continue
			}
			f.formats = Formats{orCSV(detectFormat(sample, nil))}
			for i, l := range sample {
				read(l, ns[i])
			}
			continue
		}
		read(line, lr.n)
	}
	if f.formats == nil && len(sample) > 0 {
		f.formats = Formats{orCSV(detectFormat(sample, nil))}
		for i, l := range sample {
			read(l, ns[i])
		}
	}
	if f.formats == nil {
		f.formats = Formats{CSV}
	}
	fs.Format = f.formats[0]
	fs.finish()
	s.Formats = append(s.Formats, f.formats[0])
	s.Files = append(s.Files, fs)
	sort.Strings(s.Fields)
}

func orCSV(f Format) Format {
	if f == "" {
		return CSV
	}
	return f
}

func (s *Survey) record(rec record, fs *FileSurvey) {
	for _, k := range rec.keys() {
		fs.fields[k] = true
		if v, ok := rec.get(k); ok {
			s.value(k, v)
		}
		s.nested(k, rec[k], fs)
	}
}

// nested surveys the fields of a nested JSON object by their dotted paths.
func (s *Survey) nested(prefix string, v any, fs *FileSurvey) {
	m, ok := v.(map[string]any)
	if !ok {
		return
	}
	for k, sub := range m {
		path := prefix + "." + k
		fs.fields[path] = true
		if val, ok := scalar(sub); ok {
			s.value(path, val)
		}
		s.nested(path, sub, fs)
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

var (
	hexID  = regexp.MustCompile(`\b0x[0-9a-fA-F]+\b`)
	longID = regexp.MustCompile(`\b[0-9a-f]{8,}\b|\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`)
	digits = regexp.MustCompile(`[0-9]+`)
)

// message counts a message text, its digits and ids made a pattern.
func (fs *FileSurvey) message(msg, file string, n int) {
	text, match := msg, false
	if hexID.MatchString(msg) || longID.MatchString(msg) || digits.MatchString(msg) {
		text, match = messagePattern(msg), true
	}
	if c, ok := fs.counts[text]; ok {
		c.Count++
		return
	}
	if len(fs.counts) >= surveyTexts {
		return
	}
	fs.counts[text] = &MessageCount{Text: text, Count: 1, First: baseName(file) + ":" + fmtInt(n), match: match}
}

// messagePattern is an anchored expression for texts like msg: its hex
// ids, long ids and numbers made classes, the rest quoted.
func messagePattern(msg string) string {
	type span struct {
		from, to int
		class    string
	}
	var spans []span
	for _, m := range hexID.FindAllStringIndex(msg, -1) {
		spans = append(spans, span{m[0], m[1], "0x[0-9a-f]+"})
	}
	for _, m := range longID.FindAllStringIndex(msg, -1) {
		spans = append(spans, span{m[0], m[1], "[0-9a-f-]+"})
	}
	for _, m := range digits.FindAllStringIndex(msg, -1) {
		spans = append(spans, span{m[0], m[1], "[0-9]+"})
	}
	sort.Slice(spans, func(i, j int) bool {
		return spans[i].from < spans[j].from || spans[i].from == spans[j].from && spans[i].to > spans[j].to
	})
	var b strings.Builder
	b.WriteString("^")
	at := 0
	for _, sp := range spans {
		if sp.from < at {
			continue
		}
		b.WriteString(regexp.QuoteMeta(msg[at:sp.from]))
		b.WriteString(sp.class)
		at = sp.to
	}
	b.WriteString(regexp.QuoteMeta(msg[at:]))
	b.WriteString("$")
	return b.String()
}

func fmtInt(n int) string {
	if n == 0 {
		return "0"
	}
	var d []byte
	for ; n > 0; n /= 10 {
		d = append([]byte{byte('0' + n%10)}, d...)
	}
	return string(d)
}

// suggestNames are the common field names --suggest looks for, in order.
var suggestNames = map[string][]string{
	"time":    {"time", "ts", "@timestamp", "timestamp", "msec", "__REALTIME_TIMESTAMP"},
	"actor":   {"worker", "holder", "pod", "node", "identity", "host"},
	"token":   {"token", "generation", "fence", "fencingToken", "revision", "epoch", "transitions"},
	"request": {"request_id", "request", "requestId", "req"},
}

func (fs *FileSurvey) finish() {
	for what, names := range suggestNames {
		var c []string
		for _, n := range names {
			if fs.fields[n] {
				c = append(c, n)
			}
		}
		fs.Candidates[what] = orEmpty(c)
	}
	for _, c := range fs.counts {
		fs.Messages = append(fs.Messages, *c)
	}
	sort.SliceStable(fs.Messages, func(i, j int) bool {
		a, b := fs.Messages[i], fs.Messages[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		return a.First < b.First
	})
	if fs.Messages == nil {
		fs.Messages = []MessageCount{}
	}
}

// SuggestMapping is the mapping --suggest prints: a section per file with
// its format, the first candidate of time, actor, token and request, and
// one ignore rule per distinct message text, for the reviewer to give
// kinds.
func (s *Survey) SuggestMapping() *Mapping {
	m := &Mapping{}
	for _, fs := range s.Files {
		sec := Section{Match: baseName(fs.File)}
		sec.Format = Formats{fs.Format}
		for what, dst := range map[string]**Fact{"time": &sec.Time, "actor": &sec.Actor, "token": &sec.Token, "request": &sec.Request} {
			if c := fs.Candidates[what]; len(c) > 0 {
				*dst = FieldFact(c[0])
			}
		}
		for i, mc := range fs.Messages {
			if i == surveyMessages {
				break
			}
			r := KindRule{Kind: kindIgnore, Count: []byte(fmtInt(mc.Count))}
			if mc.match {
				r.Match = mc.Text
			} else {
				t := mc.Text
				r.Is = &t
			}
			sec.Kinds = append(sec.Kinds, r)
		}
		if sec.Kinds == nil {
			sec.Kinds = []KindRule{}
		}
		m.Files = append(m.Files, sec)
	}
	return m
}

func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
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

// Suggest offers a version 1 mapping from the common field names the
// logs use, and the kind and outcome of each value whose words say it,
// as Flat for a form.
func (s *Survey) Suggest() Flat {
	pick := func(what string) string {
		for _, name := range common[what] {
			if _, ok := s.Values[name]; ok {
				return name
			}
		}
		return ""
	}
	m := Flat{Time: pick("time"), Actor: pick("actor"), Token: pick("token"), Scope: pick("scope"),
		Resource: pick("resource"), Value: pick("value"), Request: pick("request"), Op: pick("op"), Host: pick("host"),
		KindField: pick("kind"), Kinds: map[string]lab.Kind{}}
	for _, v := range s.Values[m.KindField] {
		if k := GuessKind(v); k != "" {
			m.Kinds[v] = k
		}
	}
	if f := pick("observed"); f != "" {
		m.ObservedField, m.Outcomes = f, map[string]Outcome{}
		for _, v := range s.Values[f] {
			if o := GuessOutcome(v); o != "" {
				m.Outcomes[v] = o
			}
		}
	}
	return m
}

// Flat is a version 1 mapping in plain field names, as a form edits it.
type Flat struct {
	Time, Actor, Token, Scope, Resource, Value, Request, Op, Host string
	KindField                                                     string
	Kinds                                                         map[string]lab.Kind
	ObservedField                                                 string
	Outcomes                                                      map[string]Outcome
}

// Mapping is the flat mapping as a Mapping.
func (f Flat) Mapping() *Mapping {
	m := &Mapping{}
	for _, x := range []struct {
		v   string
		dst **Fact
	}{{f.Time, &m.Time}, {f.Actor, &m.Actor}, {f.Token, &m.Token}, {f.Scope, &m.Scope}, {f.Resource, &m.Resource},
		{f.Value, &m.Value}, {f.Request, &m.Request}, {f.Op, &m.Op}, {f.Host, &m.Host}} {
		if x.v != "" {
			*x.dst = FieldFact(x.v)
		}
	}
	km := &KindMap{Field: f.KindField, Values: map[string]string{}}
	for v, k := range f.Kinds {
		km.Values[v] = string(k)
	}
	m.Kind = km
	if f.ObservedField != "" {
		m.Observed = &ObsMap{Field: f.ObservedField, Values: map[string]Outcome{}}
		for v, o := range f.Outcomes {
			m.Observed.Values[v] = o
		}
	}
	return m
}

// Flat is the mapping's top-level keys as a flat mapping: each fact's
// first field name, the kind map and the observed values.
func (m *Mapping) Flat() Flat {
	first := func(f *Fact) string {
		if f == nil || len(f.Fields) == 0 {
			return ""
		}
		return f.Fields[0]
	}
	out := Flat{Time: first(m.Time), Actor: first(m.Actor), Token: first(m.Token), Scope: first(m.Scope), Resource: first(m.Resource),
		Value: first(m.Value), Request: first(m.Request), Op: first(m.Op), Host: first(m.Host), Kinds: map[string]lab.Kind{}}
	if m.Kind != nil {
		out.KindField = m.Kind.Field
		for v, k := range m.Kind.Values {
			out.Kinds[v] = lab.Kind(k)
		}
	}
	if m.Observed != nil {
		out.ObservedField, out.Outcomes = m.Observed.Field, map[string]Outcome{}
		for v, o := range m.Observed.Values {
			out.Outcomes[v] = o
		}
	}
	return out
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
