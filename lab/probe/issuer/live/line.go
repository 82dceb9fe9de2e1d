package live

import (
	"encoding/json"
	"strconv"
)

// appendLine writes a worker's line as one JSON object and a newline, by
// hand: the probe's own cost per grant is these lines (BenchmarkRecord),
// and encoding/json's reflection was most of it. The fields are those of
// issuer.Op and line; json.Unmarshal reads them back (TestLineJSON).
func appendLine(b []byte, l *line) []byte {
	b = append(b, `{"worker":`...)
	b = appendString(b, l.Worker)
	b = append(b, `,"op":`...)
	b = appendString(b, l.Op.Op)
	if l.Target != "" {
		b = append(b, `,"target":`...)
		b = appendString(b, l.Target)
	}
	b = append(b, `,"sent":`...)
	b = strconv.AppendFloat(b, l.Sent, 'f', -1, 64)
	b = append(b, `,"answered":`...)
	b = strconv.AppendFloat(b, l.Answered, 'f', -1, 64)
	fields := [...]struct{ k, v string }{{"result", l.Result}, {"owner", l.Owner}, {"value", l.Value},
		{"error", l.Error}, {"mark", l.Mark}}
	for _, f := range fields {
		if f.v != "" {
			b = append(b, `,"`...)
			b = append(b, f.k...)
			b = append(b, `":`...)
			b = appendString(b, f.v)
		}
	}
	if l.Token != nil {
		b = append(b, `,"token":`...)
		b = strconv.AppendInt(b, *l.Token, 10)
	}
	if l.Missed {
		b = append(b, `,"missed":true`...)
	}
	b = append(b, `,"id":`...)
	b = strconv.AppendInt(b, l.ID, 10)
	return append(b, "}\n"...)
}

// appendString quotes s for JSON: plain ASCII as it is, anything else
// through encoding/json.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
