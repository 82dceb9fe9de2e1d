package logs

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"fencelab/lab"
)

// Options tune an import.
type Options struct {
	// Format of every file; "" detects it per file from its first line.
	Format Format
	// Since and Until, when not zero, keep only the events in between
	// (both included).
	Since, Until time.Time
	// Strict makes any malformed line an error.
	Strict bool
	// Skew, with Explore set, is how far apart two hosts' clocks may be:
	// events of different hosts closer than that have no known order.
	Skew    time.Duration
	Explore bool
	// Budget bounds the exploration's states; 0 is lab.DefaultBudget.
	Budget int
}

// Problem is a line that could not be read, by its source.
type Problem struct {
	Source  string `json:"source"` // file:line
	Message string `json:"message"`
}

func (p Problem) String() string { return p.Source + ": " + p.Message }

// maxProblems bounds the problems kept; the rest are only counted.
const maxProblems = 100

// Importer reads log files one after another and keeps only their
// events, so that a large log imports in bounded memory.
type Importer struct {
	m      *Mapping
	opt    Options
	files  []string
	events []*rawEvent
	// seen counts the events in range, stored or not.
	seen      int
	lines     int
	nonEvents int
	problems  []Problem
	nProblems int
	found     map[string]bool // mapped fields some line has
	keys      map[string]bool // a sample of the fields lines have
	kindSeen  map[string]bool // a sample of the kind field's values
	needles   [][]byte        // the kind values, to skip lines quickly
}

// rawEvent is an event as its line gave it.
type rawEvent struct {
	kind                         lab.Kind
	actor, scope, resource, host string
	value, request, op           string
	hasValue, hasTime            bool
	token                        *int64
	observed                     Outcome
	at                           time.Time
	source                       string
	file                         int
	key                          string // a send's unique request, before naming
}

func (e *rawEvent) sendKey() string { return e.key }

// New returns an importer of logs mapped by m.
func New(m *Mapping, opt Options) *Importer {
	return &Importer{m: m, opt: opt, found: map[string]bool{}, keys: map[string]bool{}, kindSeen: map[string]bool{}}
}

// Add reads one file's lines from r. name is how sources name the file.
// Only a read error is returned; lines that do not parse are problems.
func (im *Importer) Add(name string, r io.Reader) error {
	im.files = append(im.files, name)
	lr := &lineReader{br: bufio.NewReaderSize(r, MaxLine)}
	f := &fileState{name: name, index: len(im.files) - 1, format: im.opt.Format}
	for {
		line, err := lr.next()
		switch {
		case err == io.EOF:
			return nil
		case errors.Is(err, errTooLong):
			im.problem(name, lr.n, fmt.Sprintf("a line longer than %d MiB, left out", MaxLine>>20))
			continue
		case err != nil:
			return fmt.Errorf("read %s: %w", name, err)
		}
		im.lines++
		if !f.line(im, line, lr.n) {
			return nil
		}
	}
}

// fileState is what one file's reading remembers: its format and header.
type fileState struct {
	name   string
	index  int
	format Format
	header []string
	text   bool // a line of text has been read
}

// line handles one line; false stops reading the file (it is binary).
func (f *fileState) line(im *Importer, line []byte, n int) bool {
	if len(bytes.TrimSpace(line)) == 0 {
		return true
	}
	if msg := textProblem(line); msg != "" {
		if !f.text {
			im.problem(f.name, n, "binary data, not a log of JSON Lines, logfmt or CSV: the file is left out")
			return false
		}
		im.problem(f.name, n, msg)
		return true
	}
	f.text = true
	if f.format == "" {
		f.format = detect(line)
	}
	if f.format == CSV && f.header == nil {
		h, err := csvHeader(line)
		if err != nil {
			im.problem(f.name, n, err.Error())
			return false
		}
		f.header = h
		return true
	}
	if n > fullLines && im.cannotBeEvent(line) {
		if msg := f.check(line); msg != "" {
			im.problem(f.name, n, msg)
		} else {
			im.nonEvents++
		}
		return true
	}
	rec, err := f.parse(line)
	if err != nil {
		im.problem(f.name, n, err.Error())
		return true
	}
	im.record(rec, f, n)
	return true
}

func (f *fileState) parse(line []byte) (record, error) {
	switch f.format {
	case JSONL:
		return parseJSON(line)
	case Logfmt:
		return parseLogfmt(line)
	}
	return parseCSV(f.header, line)
}

func (im *Importer) problem(file string, line int, msg string) {
	im.nProblems++
	if len(im.problems) < maxProblems {
		im.problems = append(im.problems, Problem{Source: fmt.Sprintf("%s:%d", file, line), Message: msg})
	}
}

// get reads a mapped field, noting that some line has it.
func (im *Importer) get(rec record, name string) (string, bool) {
	if name == "" {
		return "", false
	}
	v, ok := rec.get(name)
	if ok {
		im.found[name] = true
	}
	return strings.TrimSpace(v), ok && strings.TrimSpace(v) != ""
}

// record turns a parsed line into an event, if its kind value is mapped.
func (im *Importer) record(rec record, f *fileState, n int) {
	if len(im.keys) < 200 {
		for _, k := range rec.keys() {
			im.keys[k] = true
		}
	}
	kv, _ := im.get(rec, im.m.Kind.Field)
	kind, ok := im.m.Kind.Values[kv]
	if kv != "" && len(im.kindSeen) < 20 {
		im.kindSeen[kv] = true
	}
	if !ok {
		im.nonEvents++
		return
	}
	e, err := im.event(rec, kind)
	if err != nil {
		im.problem(f.name, n, err.Error())
		return
	}
	if !im.inRange(e) {
		return
	}
	e.source, e.file = fmt.Sprintf("%s:%d", f.name, n), f.index
	if e.host == "" {
		e.host = f.name
	}
	im.seen++
	if len(im.events) < lab.MaxEvents {
		im.events = append(im.events, e)
	}
}

func (im *Importer) inRange(e *rawEvent) bool {
	if !e.hasTime {
		return true
	}
	if !im.opt.Since.IsZero() && e.at.Before(im.opt.Since) {
		return false
	}
	return im.opt.Until.IsZero() || !e.at.After(im.opt.Until)
}

// event reads the mapped fields of an event line.
func (im *Importer) event(rec record, kind lab.Kind) (*rawEvent, error) {
	m := im.m
	e := &rawEvent{kind: kind}
	if m.Time != "" {
		tv, ok := im.get(rec, m.Time)
		if !ok {
			return nil, fmt.Errorf("%s line has no time (field %q)", kind, m.Time)
		}
		t, err := ParseTime(tv)
		if err != nil {
			return nil, err
		}
		e.at, e.hasTime = t, true
	}
	e.actor, _ = im.get(rec, m.Actor)
	e.scope, _ = im.get(rec, m.Scope)
	e.resource, _ = im.get(rec, m.Resource)
	e.value, e.hasValue = im.get(rec, m.Value)
	e.request, _ = im.get(rec, m.Request)
	e.op, _ = im.get(rec, m.Op)
	e.host, _ = im.get(rec, m.Host)
	if tv, ok := im.get(rec, m.Token); ok {
		t, err := strconv.ParseInt(tv, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("token %q (field %q) is not an integer", clipText(tv), m.Token)
		}
		e.token = &t
	}
	if m.Observed != nil {
		ov, _ := im.get(rec, m.Observed.Field)
		e.observed = m.Observed.Values[ov]
	}
	return e, e.check(m)
}

// check reports a field the event's kind needs and the line lacks.
func (e *rawEvent) check(m *Mapping) error {
	switch e.kind {
	case lab.Deliver, lab.Commit:
		if e.request == "" {
			return fmt.Errorf("%s line has no request id (field %q): it cannot be matched to its send", e.kind, m.Request)
		}
	case lab.Restart:
		if e.resource == "" && e.scope == "" {
			return fmt.Errorf("restart line names neither a resource (field %q) nor a scope (field %q)", m.Resource, m.Scope)
		}
	default:
		if e.actor == "" {
			return fmt.Errorf("%s line has no actor (field %q)", e.kind, m.Actor)
		}
	}
	return nil
}
