package logs

import (
	"strings"
	"testing"
	"time"
)

func TestDetect(t *testing.T) {
	tests := []struct {
		line string
		want Format
	}{
		{`{"ts": 1, "msg": "x"}`, JSONL},
		{`ts=1 msg="a, b"`, Logfmt},
		{`ts=1 msg=x`, Logfmt},
		{`ts,msg,worker`, CSV},
		{`"ts","msg"`, CSV},
	}
	for _, tt := range tests {
		if got := detectFormat([][]byte{[]byte(tt.line)}, nil); got != tt.want {
			t.Errorf("detect(%q) = %s, want %s", tt.line, got, tt.want)
		}
	}
}

func TestParseLogfmt(t *testing.T) {
	r, err := parseLogfmt([]byte(`a=1 b="two words" c="q\"uote" flag lease.generation=42`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a": "1", "b": "two words", "c": `q"uote`, "flag": "true", "lease.generation": "42"}
	for k, v := range want {
		if got, _ := r.get(k); got != v {
			t.Errorf("parseLogfmt: %s = %q, want %q", k, got, v)
		}
	}
	for _, bad := range []string{`a="open`, `=x`} {
		if _, err := parseLogfmt([]byte(bad)); err == nil {
			t.Errorf("parseLogfmt(%q) = nil error, want one", bad)
		}
	}
}

func TestJSONPaths(t *testing.T) {
	r, err := parseJSON([]byte(`{"lease": {"generation": 42}, "a.b": "flat", "a": {"b": "nested"}, "n": null}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, want string }{{"lease.generation", "42"}, {"a.b", "flat"}} {
		if got, ok := r.get(tt.name); !ok || got != tt.want {
			t.Errorf("get(%q) = %q %v, want %q", tt.name, got, ok, tt.want)
		}
	}
	if _, ok := r.get("n"); ok {
		t.Errorf("get(n) of a null is a value, want none")
	}
}

func TestParseTime(t *testing.T) {
	base := time.Date(2025, 11, 30, 3, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Time
	}{
		{"2025-11-30T03:00:00Z", base},
		{"2025-11-30T04:00:00.250+01:00", base.Add(250 * time.Millisecond)},
		{"2025-11-30 03:00:00Z", base},
		{"1764471600", base},
		{"1764471600.5", base.Add(500 * time.Millisecond)},
		{"1764471600250", base.Add(250 * time.Millisecond)},
		{"2025-11-30 03:00:00", base},
		{"2025-11-30 04:00:00,250 +0100", base.Add(250 * time.Millisecond)},
		{"2025-11-30 03:00:00.000 UTC", base},
		{"2025/11/30 03:00:00", base},
		{"30/Nov/2025:04:00:00 +0100", base},
		{"1764471600250000", base.Add(250 * time.Millisecond)},
		{"1764471600250000000", base.Add(250 * time.Millisecond)},
		{"2025-11-30T05:00:00+02", base},
	}
	for _, tt := range tests {
		got, err := ParseTime(tt.in)
		if err != nil || !got.Equal(tt.want) {
			t.Errorf("ParseTime(%q) = %v, %v, want %v", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "yesterday", "1130 03:00:00.000000", "Nov 30 03:00:00", "2026-11-30 03:00:00 XYZ", "-5"} {
		if _, err := ParseTime(bad); err == nil {
			t.Errorf("ParseTime(%q) = nil error, want one", bad)
		}
	}
}

func TestReadMapping(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{}`, "no kind rule"},
		{`{"kind": {"field": "m", "values": {"x": "explode"}}}`, `not a kind`},
		{`{"kind": {"field": "m", "values": {"x": "write"}}, "tokn": "t"}`, `unknown field "tokn"`},
		{`{"kind": {"field": "m", "values": {"x": "write"}}, "observed": {"field": "o", "values": {"ok": "fine"}}}`, "use applied, rejected or suppressed"},
	} {
		_, err := ReadMapping(strings.NewReader(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ReadMapping(%s) = %v, want an error with %q", tt.in, err, tt.want)
		}
	}
}
