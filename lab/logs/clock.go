package logs

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// unixMillis is where Unix time as digits turns from seconds to
// milliseconds: 10^11 seconds is the year 5138, 10^11 ms is 1973.
const unixMillis = 1e11

// ParseTime reads a time as the contract allows it: RFC 3339 with
// fractions and offsets, or Unix time as digits (seconds below 10^11,
// else milliseconds), with a fraction of seconds allowed. RFC 3339 lets
// a space stand for the T between date and time, as many logs write it.
func ParseTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if len(s) > 10 && s[10] == ' ' {
		if t, err := time.Parse(time.RFC3339Nano, s[:10]+"T"+s[11:]); err == nil {
			return t, nil
		}
	}
	if t, ok := unixTime(s); ok {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("time %q is neither RFC 3339 (2026-12-01T09:30:00.123Z) nor Unix time in digits", clipText(s))
}

func unixTime(s string) (time.Time, bool) {
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" || !allDigits(whole) || (frac != "" && !allDigits(frac)) || len(whole) > 18 {
		return time.Time{}, false
	}
	n, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	f, _ := strconv.ParseFloat("0."+frac, 64)
	if n < unixMillis {
		return time.Unix(n, int64(f*1e9)).UTC(), true
	}
	return time.UnixMilli(n).Add(time.Duration(f * 1e6)).UTC(), true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
