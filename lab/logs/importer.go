package logs

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Options tune an import.
type Options struct {
	// Format of every file no section names a format for; "" detects it
	// per file from a sample of its lines.
	Format Format
	// Since and Until, when not zero, keep only the events in between
	// (both included), compared with the times as logged.
	Since, Until time.Time
	// Strict makes any malformed line an error, and reads every line.
	Strict bool
	// Skew, with Explore set, is how far apart two hosts' clocks may still
	// be once the offsets are applied.
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

// Limits of what an import keeps while it reads.
const (
	maxProblems = 100    // problems kept; the rest are only counted
	maxEntries  = 20_000 // lines kept that matched a rule (events and the rest)
	sampleLines = 100    // non-empty lines a format is detected from
	fullLines   = 100    // lines of each file always read whole
)

// Importer reads log files one after another and keeps only the lines
// its kind rules match, so that a large log imports in bounded memory.
type Importer struct {
	m         *Mapping
	opt       Options
	files     []*fileState
	entries   []*entry
	lines     int
	nonEvents int
	problems  []Problem
	nProblems int
	found     map[string]bool // mapped fields some line has
	keys      map[string]bool // a sample of the fields lines have
	msgs      []string        // the first message texts seen
	earliest  time.Time       // the earliest time with a year, for yearless times
	dropped   int             // entries past maxEntries
	needles   [][]byte        // literals one of which a matching line holds; nil: none known
	seed      maphash.Seed
}

// New returns an importer of logs mapped by m.
func New(m *Mapping, opt Options) *Importer {
	im := &Importer{m: m, opt: opt, found: map[string]bool{}, keys: map[string]bool{}, seed: maphash.MakeSeed()}
	im.needles = needlesOf(m)
	return im
}

// entry is a line a rule matched: an event, an outcome, a binding or a
// drop notice, as the line gave it.
type entry struct {
	kind                         string // a model kind, or outcome, binding, dropped
	actor, scope, resource, host string
	value, request, op, lease    string
	hasActor, hasValue, hasTime  bool
	actorNamed                   bool // the mapping names an actor for this line
	token                        *int64
	observed                     Outcome
	byDefault                    bool // observed is the mapping's default
	at                           stamp
	t                            time.Time // at, dated, once known
	duration                     time.Duration
	hasDuration                  bool
	count                        int // a drop's lines
	since                        *stamp
	file, line                   int
	hash                         uint64
	subsecond                    bool
}

func (e *entry) source(im *Importer) string {
	return fmt.Sprintf("%s:%d", im.files[e.file].label, e.line)
}

// fileState is what one file's reading remembers.
type fileState struct {
	name, base string
	label      string // how sources name the file: its base name, or its path when two files share one
	index      int
	keys       *Keys // the section's keys, or nil
	section    int
	formats    Formats
	detected   bool
	header     []string
	pattern    *regexp.Regexp
	times      timeRules
	text       bool
	pending    *pendingLine // a PostgreSQL line that later lines may add to
	host       string       // resolved at Finish
	rotation   int          // the .N suffix, or 0
	rank       int          // the file's place in read order
	stats      FileStats
}

// pendingLine is a PostgreSQL line held until the next line shows
// whether it continues it.
type pendingLine struct {
	rec  record
	n    int
	raw  []byte
	last string // the field a tab line continues
}

// FileStats counts what became of one file's lines.
type FileStats struct {
	File    string         `json:"file"`
	Format  Format         `json:"format"`
	Host    string         `json:"host"`
	Read    int            `json:"read"`
	Parsed  int            `json:"parsed"`
	Matched int            `json:"matched"`
	Events  int            `json:"events"`
	LeftOut map[string]int `json:"left_out"`
}

// The reasons a matched line is left out, as FileStats names them.
const (
	leftNoTime    = "no time"
	leftNoRequest = "no request"
	leftOutside   = "outside --since/--until"
	leftDuplicate = "duplicate"
)

// Add reads one file's lines from r. name is how sources name the file.
// Only a read error is returned; lines that do not parse are problems.
func (im *Importer) Add(name string, r io.Reader) error {
	f := &fileState{name: name, base: filepath.Base(name), label: filepath.Base(name), index: len(im.files)}
	for _, g := range im.files {
		if g.base == f.base {
			f.label, g.label = name, g.name
		}
	}
	f.stats = FileStats{File: name, LeftOut: map[string]int{leftNoTime: 0, leftNoRequest: 0, leftOutside: 0, leftDuplicate: 0}}
	f.keys, f.section = im.m.section(f.base)
	f.formats = im.opt.formatFor(im.m, f.keys)
	f.detected = len(f.formats) > 0
	f.times = im.timeRulesFor(f.keys)
	if p := im.key(f, func(k *Keys) string { return k.Pattern }); p != "" {
		f.pattern, _ = compile(p) // checked by ReadMapping
	}
	f.rotation = rotationOf(f.base)
	im.files = append(im.files, f)
	lr := &lineReader{br: bufio.NewReaderSize(r, MaxLine)}
	var sample [][]byte
	var sampleN []int
	for {
		line, err := lr.next()
		switch {
		case err == io.EOF:
			if !f.detected {
				if !im.detect(f, sample, sampleN) {
					return nil
				}
			}
			im.flushPending(f)
			if f.stats.Read == 0 {
				im.problem(f, 0, "the file is empty")
			}
			return nil
		case errors.Is(err, errTooLong):
			im.lines++
			f.stats.Read++
			im.problem(f, lr.n, fmt.Sprintf("a line longer than %d MiB, left out", MaxLine>>20))
			continue
		case err != nil:
			return fmt.Errorf("read %s: %w", name, err)
		}
		im.lines++
		f.stats.Read++
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if msg := textProblem(line); msg != "" {
			if !f.text {
				im.problem(f, lr.n, "binary data: "+name+" is not a log of text lines, and is left out")
				f.formats, f.detected = nil, true
				return nil
			}
			im.problem(f, lr.n, msg)
			continue
		}
		f.text = true
		if !f.detected {
			sample = append(sample, bytes.Clone(line))
			sampleN = append(sampleN, lr.n)
			if len(sample) < sampleLines {
				continue
			}
			if !im.detect(f, sample, sampleN) {
				return nil
			}
			sample, sampleN = nil, nil
			continue
		}
		im.line(f, line, lr.n)
	}
}

// detect chooses the file's format from its sample and reads the sample.
func (im *Importer) detect(f *fileState, sample [][]byte, ns []int) bool {
	f.detected = true
	if len(sample) == 0 {
		return true
	}
	format := detectFormat(sample, f.pattern)
	if format == "" {
		im.problem(f, 0, fmt.Sprintf("%s is not a log the import reads: no format reads more than half of its "+
			"first %d lines (name its format in a section of the mapping, or give a pattern); the file is left out",
			f.label, len(sample)))
		f.formats = nil
		return false
	}
	f.formats = Formats{format}
	for i, line := range sample {
		im.line(f, line, ns[i])
	}
	return true
}

// detectFormat is the first format that reads more than half of the
// sample: JSON Lines (journald's when its first object says so), the
// text presets, logfmt; else CSV with a header.
func detectFormat(sample [][]byte, pattern *regexp.Regexp) Format {
	half := len(sample) / 2
	reads := func(f Format) bool {
		n := 0
		for _, l := range sample {
			if readsLine(f, l, pattern) {
				n++
			}
		}
		return n > half
	}
	if reads(JSONL) {
		for _, l := range sample {
			if r, err := parseJSON(l); err == nil {
				if _, a := r["__REALTIME_TIMESTAMP"]; a {
					if _, b := r["MESSAGE"]; b {
						return Journald
					}
				}
				break
			}
		}
		return JSONL
	}
	if pattern != nil && reads(Pattern) {
		return Pattern
	}
	for _, p := range presets {
		if reads(p) {
			return p
		}
	}
	if reads(Logfmt) {
		return Logfmt
	}
	if csvReads(sample) {
		return CSV
	}
	return ""
}

// csvReads reports whether the sample is a CSV file: a header of two
// fields or more, and more than half of the rows after it of its width.
func csvReads(sample [][]byte) bool {
	h, err := csvHeader(sample[0])
	if err != nil || len(h) < 2 {
		return false
	}
	if len(sample) == 1 {
		return true
	}
	n := 0
	for _, l := range sample[1:] {
		if row, err := csvRow(l); err == nil && len(row) == len(h) {
			n++
		}
	}
	return n*2 > len(sample)-1
}

// readsLine reports whether a format reads the line, for detection.
func readsLine(f Format, line []byte, pattern *regexp.Regexp) bool {
	switch f {
	case JSONL:
		t := bytes.TrimSpace(line)
		return len(t) > 0 && t[0] == '{' && bytesValidJSON(t)
	case Logfmt:
		r, err := logfmtPairs(string(line), false)
		if err != nil {
			return false
		}
		pairs := 0
		for _, v := range r {
			if v != "true" {
				pairs++
			}
		}
		return pairs > 0 && pairs*2 >= len(r)
	case Pattern:
		return pattern != nil && pattern.Match(line)
	case Postgres:
		return pgLine.Match(line) || pgContinues(line)
	}
	_, err := parsePreset(f, string(line))
	return err == nil
}

func pgContinues(line []byte) bool { return len(line) > 0 && line[0] == '\t' }

// line reads one non-empty line of text in the file's format.
func (im *Importer) line(f *fileState, line []byte, n int) {
	if len(f.formats) == 0 {
		f.formats = Formats{CSV}
	}
	if f.formats[0] == CSV && len(f.formats) == 1 {
		if f.header == nil {
			h, err := csvHeader(line)
			if err != nil {
				im.problem(f, n, err.Error())
				return
			}
			f.header = h
			return
		}
	}
	if slices.Contains(f.formats, Postgres) {
		if im.pgLine(f, line, n) {
			return
		}
	}
	if n > fullLines && !im.opt.Strict && im.cannotMatch(line) {
		im.nonEvents++
		return
	}
	rec, format, err := im.parse(f, line)
	if err != nil {
		im.problem(f, n, err.Error())
		return
	}
	im.record(f, rec, format, line, n)
}

// pgLine handles PostgreSQL's multi-line messages: a DETAIL, HINT,
// CONTEXT, STATEMENT or QUERY line of the same process, or a line that
// starts with a tab, adds to the line before it. It reports whether the
// line was taken.
func (im *Importer) pgLine(f *fileState, line []byte, n int) bool {
	p := f.pending
	if pgContinues(line) {
		if p != nil {
			cur, _ := p.rec[p.last].(string)
			p.rec[p.last] = cur + "\n" + strings.TrimLeft(string(line), "\t")
			return true
		}
		return false
	}
	m := pgLine.FindSubmatch(line)
	if m == nil {
		im.flushPending(f)
		return false
	}
	if field, ok := pgExtra[string(m[3])]; ok && p != nil && p.rec["pid"] == string(m[2]) {
		p.rec[field] = string(m[4])
		p.last = field
		return true
	}
	im.flushPending(f)
	rec, _ := parsePreset(Postgres, string(line))
	f.pending = &pendingLine{rec: rec, n: n, raw: bytes.Clone(line), last: "msg"}
	f.stats.Parsed++
	return true
}

func (im *Importer) flushPending(f *fileState) {
	p := f.pending
	if p == nil {
		return
	}
	f.pending = nil
	if p.n > fullLines && !im.opt.Strict && im.cannotMatch(flatten(p.rec)) {
		im.nonEvents++
		return
	}
	f.stats.Parsed-- // record counts it again
	im.record(f, p.rec, Postgres, p.raw, p.n)
}

// flatten joins a record's values, for the literal check of a PostgreSQL
// line whose later lines added fields.
func flatten(r record) []byte {
	var b bytes.Buffer
	for _, v := range r {
		if s, ok := v.(string); ok {
			b.WriteString(s)
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

// parse reads a line with the first of the file's formats that reads it.
func (im *Importer) parse(f *fileState, line []byte) (record, Format, error) {
	var first error
	for _, format := range f.formats {
		rec, err := im.parseAs(f, format, line)
		if err == nil {
			return rec, format, nil
		}
		if first == nil {
			first = err
		}
	}
	if len(f.formats) > 1 {
		names := make([]string, len(f.formats))
		for i, x := range f.formats {
			names[i] = string(x)
		}
		return nil, "", fmt.Errorf("not a line of %s", strings.Join(names, " or "))
	}
	return nil, "", first
}

func (im *Importer) parseAs(f *fileState, format Format, line []byte) (record, error) {
	switch format {
	case JSONL, Journald:
		return parseJSON(line)
	case Logfmt:
		return parseLogfmt(line)
	case CSV:
		if f.header == nil {
			return nil, fmt.Errorf("a CSV line before the header")
		}
		return parseCSV(f.header, line)
	case Pattern:
		if f.pattern == nil {
			return nil, fmt.Errorf("no pattern")
		}
		m := f.pattern.FindSubmatch(line)
		if m == nil || len(m[0]) != len(line) {
			return nil, fmt.Errorf("does not match the pattern")
		}
		r := record{}
		for i, name := range f.pattern.SubexpNames() {
			if name != "" && m[i] != nil {
				r[name] = string(m[i])
			}
		}
		return r, nil
	}
	return parsePreset(format, string(line))
}

// cannotMatch reports whether the line holds none of the literals every
// matching line holds, so that it matches no rule whatever its fields.
func (im *Importer) cannotMatch(line []byte) bool {
	if im.needles == nil {
		return false
	}
	for _, n := range im.needles {
		if bytes.Contains(line, n) {
			return false
		}
	}
	return true
}

func (im *Importer) problem(f *fileState, line int, msg string) {
	im.nProblems++
	if len(im.problems) < maxProblems {
		src := f.label
		if line > 0 {
			src = fmt.Sprintf("%s:%d", f.label, line)
		}
		im.problems = append(im.problems, Problem{Source: src, Message: msg})
	}
}

// key is the value of a reading option for a file: its section's, else
// the top level's.
func (im *Importer) key(f *fileState, get func(*Keys) string) string {
	if f.keys != nil {
		if v := get(f.keys); v != "" {
			return v
		}
	}
	return get(&im.m.Keys)
}

func (o Options) formatFor(m *Mapping, sec *Keys) Formats {
	if sec != nil && len(sec.Format) > 0 {
		return sec.Format
	}
	if o.Format != "" {
		return Formats{o.Format}
	}
	return m.Format
}

func (im *Importer) timeRulesFor(sec *Keys) timeRules {
	pick := func(get func(*Keys) string) string {
		if sec != nil {
			if v := get(sec); v != "" {
				return v
			}
		}
		return get(&im.m.Keys)
	}
	r := timeRules{unit: pick(func(k *Keys) string { return k.TimeUnit }), layout: pick(func(k *Keys) string { return k.TimeLayout })}
	if z := pick(func(k *Keys) string { return k.Zone }); z != "" {
		r.zone, _ = loadZone(z) // checked by ReadMapping
	}
	r.year = im.m.Year
	if sec != nil && sec.Year != 0 {
		r.year = sec.Year
	}
	return r
}

// rotationOf is a rotated file's .N suffix, or 0.
func rotationOf(base string) int {
	i := strings.LastIndexByte(base, '.')
	if i < 0 || i == len(base)-1 {
		return 0
	}
	n, err := strconv.Atoi(base[i+1:])
	if err != nil || n < 1 {
		return 0
	}
	return n
}

// record turns a parsed line into an entry when a rule matches it.
func (im *Importer) record(f *fileState, rec record, format Format, raw []byte, n int) {
	f.stats.Parsed++
	lr := im.lineRules(f, format)
	lr.restFields(rec)
	if len(im.keys) < 200 {
		for _, k := range rec.keys() {
			im.keys[k] = true
		}
	}
	msg, _ := lr.fact(rec, "message", nil)
	if msg != "" && len(im.msgs) < 20 && !slices.Contains(im.msgs, msg) {
		im.msgs = append(im.msgs, msg)
	}
	if st, ok := lr.stamp(rec, nil); ok == nil && !st.noYear && (im.earliest.IsZero() || st.t.Before(im.earliest)) {
		im.earliest = st.t
	}
	kind, groups, rule := lr.kind(rec, msg)
	if kind == "" {
		if d, ok := builtinDrop(string(raw)); ok {
			kind, groups = kindDropped, d
		}
	}
	if kind == "" || kind == kindIgnore {
		im.nonEvents++
		return
	}
	f.stats.Matched++
	e, err := lr.entry(rec, kind, groups, rule)
	if err != nil {
		im.problem(f, n, err.Error())
		return
	}
	if e == nil { // left out, counted
		return
	}
	e.file, e.line = f.index, n
	e.hash = maphash.Bytes(im.seed, raw)
	if len(im.entries) >= maxEntries {
		// Past the limit only events are counted: they are far more than
		// the model replays, and the import fails naming --since and --until.
		im.dropped++
		return
	}
	im.entries = append(im.entries, e)
}
