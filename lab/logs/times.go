package logs

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// timeRules are the reading options that say how to read a line's time.
type timeRules struct {
	zone   *time.Location // for times with no offset; UTC by default
	year   int            // for times with no year; 0: inferred
	unit   string         // for Unix times: s, ms, us, ns; "": by magnitude
	layout string         // a Go reference layout, tried first
}

// stamp is a time as a line logged it. A time with no year (klog, RFC
// 3164) is kept as logged, in year 2000, until the import knows its year.
type stamp struct {
	t      time.Time
	noYear bool
}

// withYear returns the stamp's time in year y.
func (s stamp) withYear(y int) time.Time {
	if !s.noYear {
		return s.t
	}
	t := s.t
	return time.Date(y, t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), t.Location())
}

var (
	isoTime = regexp.MustCompile(`^(\d{4})[-/](\d{2})[-/](\d{2})(?:[T ]|  ?)(\d{2}):(\d{2}):(\d{2})(?:[.,](\d+))?` +
		`(?: ?(Z|[+-]\d{2}(?::?\d{2})?|[A-Za-z]{1,5}))?$`)
	nginxTime  = regexp.MustCompile(`^(\d{2})/([A-Z][a-z]{2})/(\d{4}):(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))? ?([+-]\d{2}:?\d{2}|Z)?$`)
	klogTime   = regexp.MustCompile(`^(\d{2})(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?$`)
	bsdTime    = regexp.MustCompile(`^([A-Z][a-z]{2}) +(\d{1,2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?$`)
	monthNames = map[string]time.Month{"Jan": 1, "Feb": 2, "Mar": 3, "Apr": 4, "May": 5, "Jun": 6,
		"Jul": 7, "Aug": 8, "Sep": 9, "Oct": 10, "Nov": 11, "Dec": 12}
)

// ParseTime reads a time as the contract allows it, in UTC when it
// names no offset: RFC 3339 and its relatives (offsets without a colon,
// a space for the T, a comma before the fraction, a zone name after a
// space), Go's log prefix, nginx's time, and Unix time by magnitude. A
// time with no year is an error here: only an import can give it one.
func ParseTime(s string) (time.Time, error) {
	st, err := timeRules{}.parse(s)
	if err != nil {
		return time.Time{}, err
	}
	if st.noYear {
		return time.Time{}, fmt.Errorf("time %q has no year", clipText(s))
	}
	return st.t, nil
}

// parse reads a time under the rules.
func (r timeRules) parse(s string) (stamp, error) {
	s = strings.TrimSpace(s)
	zone := r.zone
	if zone == nil {
		zone = time.UTC
	}
	if r.layout != "" {
		if t, err := time.ParseInLocation(r.layout, s, zone); err == nil {
			return stamp{t: t}, nil
		}
	}
	if t, ok := unixTime(s, r.unit); ok {
		return stamp{t: t}, nil
	}
	if m := isoTime.FindStringSubmatch(s); m != nil {
		loc, err := zoneOf(m[8], zone)
		if err == nil {
			return stamp{t: date(atoi(m[1]), time.Month(atoi(m[2])), m[3], m[4:8], loc)}, nil
		}
		return stamp{}, fmt.Errorf("time %q: %v", clipText(s), err)
	}
	if m := nginxTime.FindStringSubmatch(s); m != nil {
		if mon, ok := monthNames[m[2]]; ok {
			loc, err := zoneOf(m[8], zone)
			if err == nil {
				return stamp{t: date(atoi(m[3]), mon, m[1], m[4:8], loc)}, nil
			}
		}
	}
	if m := klogTime.FindStringSubmatch(s); m != nil {
		return r.yearless(time.Month(atoi(m[1])), m[2], m[3:7], zone)
	}
	if m := bsdTime.FindStringSubmatch(s); m != nil {
		if mon, ok := monthNames[m[1]]; ok {
			return r.yearless(mon, m[2], m[3:7], zone)
		}
	}
	return stamp{}, fmt.Errorf("time %q is not a time the import reads", clipText(s))
}

// yearless is a time with no year: in the rules' year when they give
// one, else kept for the import to date.
func (r timeRules) yearless(mon time.Month, day string, clock []string, zone *time.Location) (stamp, error) {
	if mon < 1 || mon > 12 || atoi(day) < 1 || atoi(day) > 31 {
		return stamp{}, fmt.Errorf("time: month %d, day %s is not a date", mon, day)
	}
	y := r.year
	if y == 0 {
		y = 2000 // a leap year, so that 29 February reads
	}
	t := date(y, mon, day, clock, zone)
	return stamp{t: t, noYear: r.year == 0}, nil
}

// date builds a time from its parts; clock is hour, minute, second and
// the fraction's digits.
func date(y int, mon time.Month, day string, clock []string, loc *time.Location) time.Time {
	ns := 0
	if f := clock[3]; f != "" {
		if len(f) > 9 {
			f = f[:9]
		}
		ns = atoi(f + strings.Repeat("0", 9-len(f)))
	}
	return time.Date(y, mon, atoi(day), atoi(clock[0]), atoi(clock[1]), atoi(clock[2]), ns, loc)
}

func atoi(s string) int {
	n, _ := strconv.Atoi(strings.TrimSpace(s))
	return n
}

// zoneOf reads an offset or a zone name; "" is the default zone.
func zoneOf(z string, def *time.Location) (*time.Location, error) {
	switch z {
	case "":
		return def, nil
	case "Z", "UTC", "GMT", "UT", "z":
		return time.UTC, nil
	}
	if off, ok := parseOffset(z); ok {
		return time.FixedZone("", off), nil
	}
	// A zone abbreviation: only the mapping's zone can say what it means.
	if name, _ := time.Date(2026, 1, 1, 0, 0, 0, 0, def).Zone(); name == z {
		return def, nil
	}
	if name, _ := time.Date(2026, 7, 1, 0, 0, 0, 0, def).Zone(); name == z {
		return def, nil
	}
	return nil, fmt.Errorf("the zone %q is not one the import knows: set the mapping's zone to its offset or IANA name", z)
}

// parseOffset reads +01:00, +0100 or +01 (and −).
func parseOffset(s string) (int, bool) {
	if len(s) < 3 || (s[0] != '+' && s[0] != '-') {
		return 0, false
	}
	d := strings.ReplaceAll(s[1:], ":", "")
	if !allDigits(d) || (len(d) != 2 && len(d) != 4) {
		return 0, false
	}
	h, m := atoi(d[:2]), 0
	if len(d) == 4 {
		m = atoi(d[2:])
	}
	if h > 23 || m > 59 {
		return 0, false
	}
	off := h*3600 + m*60
	if s[0] == '-' {
		off = -off
	}
	return off, true
}

// unixTime reads digits with an optional fraction as Unix time: in unit
// when given, else seconds below 10^11, milliseconds below 10^14,
// microseconds below 10^17, else nanoseconds.
func unixTime(s, unit string) (time.Time, bool) {
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" || !allDigits(whole) || (frac != "" && !allDigits(frac)) || len(whole) > 19 {
		return time.Time{}, false
	}
	n, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	f, _ := strconv.ParseFloat("0."+frac, 64)
	if unit == "" {
		switch {
		case n < 1e11:
			unit = "s"
		case n < 1e14:
			unit = "ms"
		case n < 1e17:
			unit = "us"
		default:
			unit = "ns"
		}
	}
	var per int64
	switch unit {
	case "s":
		per = 1e9
	case "ms":
		per = 1e6
	case "us":
		per = 1e3
	default:
		per = 1
	}
	if n > math.MaxInt64/per {
		return time.Time{}, false
	}
	return time.Unix(0, n*per+int64(f*float64(per))).UTC(), true
}

// parseDuration reads Go's duration syntax, or a bare number in unit
// (default ms).
func parseDuration(s, unit string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if f < 0 {
			return 0, fmt.Errorf("%q is negative", s)
		}
		per := map[string]float64{"": 1e6, "ms": 1e6, "s": 1e9, "us": 1e3, "ns": 1}[unit]
		return time.Duration(f * per), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is not a duration (15803.118ms, 1.2s)", clipText(s))
	}
	return d, nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
