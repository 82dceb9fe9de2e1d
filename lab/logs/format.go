package logs

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Format is how a log file writes its lines.
type Format string

// The formats an import reads: three generic ones, a pattern of the
// mapping's, and the text presets of real systems, in the order
// detection tries them.
const (
	JSONL      Format = "jsonl"  // one JSON object per line
	Logfmt     Format = "logfmt" // key=value key2="quoted value"
	CSV        Format = "csv"    // a header row, then one record per line
	Pattern    Format = "pattern"
	Klog       Format = "klog"
	Hclog      Format = "hclog"
	Zookeeper  Format = "zookeeper"
	Log4j      Format = "log4j"
	JVM        Format = "jvm"
	Syslog     Format = "syslog"
	Syslog3164 Format = "syslog3164"
	Heroku     Format = "heroku"
	Golog      Format = "golog"
	Postgres   Format = "postgres"
	Nginx      Format = "nginx"
	Journald   Format = "journald"
)

// presets are the text presets in the order detection tries them.
var presets = []Format{Klog, Hclog, Zookeeper, Log4j, JVM, Syslog, Syslog3164, Heroku, Golog, Postgres, Nginx}

// Formats lists every format a mapping or --format may name.
func AllFormats() []Format {
	out := []Format{JSONL, Logfmt, CSV, Pattern}
	out = append(out, presets...)
	return append(out, Journald)
}

// MaxLine is the longest line read, in bytes. A longer line is reported
// and skipped without being held in memory whole.
const MaxLine = 1 << 20

// ParseFormat reads a --format value: "" (detect) or a format's name.
func ParseFormat(s string) (Format, error) {
	if s == "" {
		return "", nil
	}
	for _, f := range AllFormats() {
		if string(f) == s {
			return f, nil
		}
	}
	names := make([]string, 0, 16)
	for _, f := range AllFormats() {
		names = append(names, string(f))
	}
	return "", fmt.Errorf("format %q: use one of %s", s, strings.Join(names, ", "))
}

// timeField, hostField and restField are the fields a format gives its
// lines' time, host and rest by default ("" for none).
func (f Format) timeField() string {
	switch f {
	case JSONL, Logfmt, CSV, Pattern:
		return ""
	case Journald:
		return "__REALTIME_TIMESTAMP"
	}
	return "time"
}

func (f Format) hostField() string {
	switch f {
	case Syslog, Syslog3164:
		return "host"
	case Journald:
		return "_HOSTNAME"
	}
	return ""
}

func (f Format) restField() string {
	switch f {
	case Klog, Hclog, Heroku, Golog, Pattern:
		return "rest"
	case Journald:
		return "MESSAGE"
	}
	return ""
}

// record is one parsed line: its fields by name. Values are strings, or
// JSON values (json.Number, bool, nested objects) for JSON lines.
type record map[string]any

// get looks the name up as written, then as a dotted path into nested
// JSON objects.
func (r record) get(name string) (string, bool) {
	if v, ok := r[name]; ok {
		return scalar(v)
	}
	if !strings.Contains(name, ".") {
		return "", false
	}
	var cur any = map[string]any(r)
	for part := range strings.SplitSeq(name, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			if rm, ok2 := cur.(record); ok2 {
				m = rm
			} else {
				return "", false
			}
		}
		if cur, ok = m[part]; !ok {
			return "", false
		}
	}
	return scalar(cur)
}

func (r record) keys() []string {
	out := make([]string, 0, len(r))
	for k := range r {
		out = append(out, k)
	}
	return out
}

// scalar renders a JSON string, number or boolean as text; null, objects
// and lists are not a value.
func scalar(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case json.Number:
		return v.String(), true
	case bool:
		if v {
			return "true", true
		}
		return "false", true
	}
	return "", false
}

// lineReader reads lines of at most MaxLine bytes, counting them.
type lineReader struct {
	br *bufio.Reader
	n  int
}

var errTooLong = errors.New("line too long")

// next returns the next line without its end, or errTooLong after
// skipping a line longer than MaxLine, or io.EOF.
func (lr *lineReader) next() ([]byte, error) {
	line, err := lr.br.ReadSlice('\n')
	if len(line) == 0 && err == io.EOF {
		return nil, io.EOF
	}
	lr.n++
	if errors.Is(err, bufio.ErrBufferFull) {
		for errors.Is(err, bufio.ErrBufferFull) {
			_, err = lr.br.ReadSlice('\n')
		}
		if err != nil && err != io.EOF {
			return nil, err
		}
		return nil, errTooLong
	}
	if err != nil && err != io.EOF {
		return nil, err
	}
	return bytes.TrimRight(line, "\r\n"), nil
}

// textProblem says why a line is not text, or "".
func textProblem(line []byte) string {
	if bytes.IndexByte(line, 0) >= 0 || !utf8.Valid(line) {
		return "binary data, not a line of text"
	}
	return ""
}

func parseJSON(line []byte) (record, error) {
	t := bytes.TrimSpace(line)
	if len(t) == 0 || t[0] != '{' {
		return nil, fmt.Errorf("not a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(t))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil || m == nil {
		return nil, fmt.Errorf("not a JSON object: %v", cleanErr(err))
	}
	if dec.More() {
		return nil, fmt.Errorf("more than one JSON value on the line")
	}
	return record(m), nil
}

func cleanErr(err error) string {
	if err == nil {
		return "null"
	}
	return err.Error()
}

// parseLogfmt reads key=value pairs; a value may be double-quoted with
// backslash escapes, and a bare key is true.
func parseLogfmt(line []byte) (record, error) {
	r, err := logfmtPairs(string(line), false)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// logfmtPairs reads a logfmt text; strict refuses a bare key, so that
// only a text made of key=value pairs reads.
func logfmtPairs(s string, strict bool) (record, error) {
	r := record{}
	for {
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			break
		}
		end := strings.IndexAny(s, "= \t")
		if end < 0 {
			end = len(s)
		}
		key := s[:end]
		if key == "" || strings.ContainsAny(key, `"{}[]`) {
			return nil, fmt.Errorf("not logfmt: a value with no key at %q", clipText(s))
		}
		s = s[end:]
		if !strings.HasPrefix(s, "=") {
			if strict {
				return nil, fmt.Errorf("not logfmt: %q is not a key=value pair", clipText(key))
			}
			r[key] = "true"
			continue
		}
		val, rest, err := logfmtValue(s[1:])
		if err != nil {
			return nil, fmt.Errorf("not logfmt: %s %v", key, err)
		}
		r[key], s = val, rest
	}
	if len(r) == 0 {
		return nil, fmt.Errorf("not logfmt: no key=value pair")
	}
	return r, nil
}

func logfmtValue(s string) (val, rest string, err error) {
	if !strings.HasPrefix(s, `"`) {
		end := strings.IndexAny(s, " \t")
		if end < 0 {
			return s, "", nil
		}
		return s[:end], s[end:], nil
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s):
			i++
			b.WriteByte(unescape(s[i]))
		case c == '"':
			if i+1 < len(s) && s[i+1] != ' ' && s[i+1] != '\t' {
				return "", "", fmt.Errorf("has text right after its closing quote")
			}
			return b.String(), s[i+1:], nil
		default:
			b.WriteByte(c)
		}
	}
	return "", "", fmt.Errorf("has an unterminated quote")
}

func unescape(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 't':
		return '\t'
	}
	return c
}

// csvHeader reads a CSV header row.
func csvHeader(line []byte) ([]string, error) {
	row, err := csvRow(line)
	if err != nil {
		return nil, err
	}
	for i := range row {
		row[i] = strings.TrimSpace(row[i])
	}
	return row, nil
}

func csvRow(line []byte) ([]string, error) {
	cr := csv.NewReader(bytes.NewReader(line))
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = true
	row, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("not CSV: %v", err)
	}
	return row, nil
}

// parseCSV reads one row against the header.
func parseCSV(header []string, line []byte) (record, error) {
	row, err := csvRow(line)
	if err != nil {
		return nil, err
	}
	if len(row) != len(header) {
		return nil, fmt.Errorf("has %d fields, the header has %d", len(row), len(header))
	}
	r := make(record, len(row))
	for i, v := range row {
		if v != "" {
			r[header[i]] = v
		}
	}
	return r, nil
}

// clipText shortens text quoted in a message.
func clipText(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
