package logs

import (
	"bytes"
	"encoding/json"

	"fencelab/lab"
)

// fullLines is how many lines of each file are always read whole, so
// that the fields of the logs are known even where few lines are events.
const fullLines = 100

// cannotBeEvent reports whether the line contains none of the mapping's
// kind values as written, so that it is no event whatever its fields: most
// lines of a log are not, and reading them whole is most of the cost.
// A mapping with a value that a log may escape (a quote, a backslash, a
// character outside printable ASCII) turns this off.
func (im *Importer) cannotBeEvent(line []byte) bool {
	if im.needles == nil {
		im.needles = plainValues(im.m.Kind.Values)
	}
	if len(im.needles) == 0 {
		return false
	}
	for _, v := range im.needles {
		if bytes.Contains(line, v) {
			return false
		}
	}
	return true
}

// plainValues lists the kind values as bytes, or an empty non-nil list
// when one of them could be escaped in a log.
func plainValues(values map[string]lab.Kind) [][]byte {
	out := make([][]byte, 0, len(values))
	for v := range values {
		for i := 0; i < len(v); i++ {
			if c := v[i]; c < ' ' || c > '~' || c == '"' || c == '\\' {
				return [][]byte{}
			}
		}
		out = append(out, []byte(v))
	}
	return out
}

// check says why a line that is no event does not parse, or "": a JSON
// line is only validated, which costs no allocation.
func (f *fileState) check(line []byte) string {
	if f.format == JSONL {
		if t := bytes.TrimSpace(line); len(t) == 0 || t[0] != '{' || !json.Valid(t) {
			return "not a JSON object"
		}
		return ""
	}
	if _, err := f.parse(line); err != nil {
		return err.Error()
	}
	return ""
}
