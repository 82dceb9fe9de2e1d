package logs

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// The presets' line shapes. Each reads the prefix a system writes; the
// message and what follows it are fields.
var (
	klogLine  = regexp.MustCompile(`^([IWEF])(\d{4} \d{2}:\d{2}:\d{2}(?:\.\d+)?)\s+(\d+)\s+([^\]\s]+)\] ?(.*)$`)
	hclogLine = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?)` +
		` \[(TRACE|DEBUG|INFO|WARN|ERROR|trace|debug|info|warn|error)\]\s+(.*)$`)
	zkLine = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:[.,]\d+)?) \[myid:([^\]]*)\]` +
		` - ([A-Z]+)\s+\[(.*?):([\w.$<>-]+@\d+)\] - (.*)$`)
	log4jLine = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?)` +
		` \[(.*?)\] (TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL|SEVERE)\s+(\S+)\s+- ?(.*)$`)
	jvmDecor   = regexp.MustCompile(`^\[([^\]]*)\]`)
	syslogHead = regexp.MustCompile(`^<(\d{1,3})>1 (\S+) (\S+) (\S+) (\S+) (\S+) `)
	bsdLine    = regexp.MustCompile(`^(?:<(\d{1,3})>)?([A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2}) (\S+) ([^\s\[:]+)(?:\[([^\]]*)\])?: ?(.*)$`)
	herokuLine = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2}T\S+) (app|heroku)\[([^\]]+)\]: ?(.*)$`)
	gologLine  = regexp.MustCompile(`^(\d{4}/\d{2}/\d{2} \d{2}:\d{2}:\d{2}(?:\.\d+)?) (?:(DEBUG|INFO|WARN|ERROR) )?(.*)$`)
	pgLine     = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d+)?(?: [A-Za-z]{1,5}| ?[+-]\d{2}(?::?\d{2})?)?)` +
		` \[(\d+)\] ([A-Z]+[0-9]?):  ?(.*)$`)
	nginxLine = regexp.MustCompile(`^(\S+) (\S+) (\S+) \[([^\]]+)\] "(?:(\S+) (\S+)(?: ([^"]*))?|[^"]*)" (\d{3}) (\d+|-)` +
		`(?: "((?:[^"\\]|\\.)*)" "((?:[^"\\]|\\.)*)")?`)
)

// pgExtra are the PostgreSQL lines that add to the line before them.
var pgExtra = map[string]string{"DETAIL": "detail", "HINT": "hint", "CONTEXT": "context", "STATEMENT": "statement", "QUERY": "query"}

// parsePreset reads a line in one of the text presets.
func parsePreset(f Format, line string) (record, error) {
	switch f {
	case Klog:
		return parseKlog(line)
	case Hclog:
		return parseHclog(line)
	case Zookeeper:
		m := zkLine.FindStringSubmatch(line)
		if m == nil {
			return nil, errNot(f)
		}
		return record{"time": m[1], "myid": m[2], "level": m[3], "thread": m[4], "caller": m[5], "msg": m[6]}, nil
	case Log4j:
		m := log4jLine.FindStringSubmatch(line)
		if m == nil {
			return nil, errNot(f)
		}
		return record{"time": m[1], "thread": m[2], "level": m[3], "logger": m[4], "msg": m[5]}, nil
	case JVM:
		return parseJVM(line)
	case Syslog:
		return parseSyslog(line)
	case Syslog3164:
		m := bsdLine.FindStringSubmatch(line)
		if m == nil {
			return nil, errNot(f)
		}
		r := record{"time": m[2], "host": m[3], "app": m[4], "msg": m[6]}
		setIf(r, "priority", m[1])
		setIf(r, "procid", m[5])
		return r, nil
	case Heroku:
		m := herokuLine.FindStringSubmatch(line)
		if m == nil {
			return nil, errNot(f)
		}
		return record{"time": m[1], "source": m[2], "dyno": m[3], "rest": m[4]}, nil
	case Golog:
		m := gologLine.FindStringSubmatch(line)
		if m == nil {
			return nil, errNot(f)
		}
		r := record{"time": m[1]}
		setIf(r, "level", m[2])
		msg, rest := trailingPairs(m[3])
		r["msg"] = msg
		setIf(r, "rest", rest)
		return r, nil
	case Postgres:
		m := pgLine.FindStringSubmatch(line)
		if m == nil {
			return nil, errNot(f)
		}
		return record{"time": m[1], "pid": m[2], "level": m[3], "msg": m[4]}, nil
	case Nginx:
		m := nginxLine.FindStringSubmatch(line)
		if m == nil {
			return nil, errNot(f)
		}
		r := record{"remote_addr": m[1], "time": m[4], "status": m[8], "body_bytes_sent": m[9]}
		setIf(r, "remote_user", m[3])
		setIf(r, "request_method", m[5])
		setIf(r, "request_uri", m[6])
		setIf(r, "protocol", m[7])
		setIf(r, "http_referer", m[10])
		setIf(r, "http_user_agent", m[11])
		return r, nil
	}
	return nil, fmt.Errorf("%s is not a text preset", f)
}

func errNot(f Format) error { return fmt.Errorf("not a %s line", f) }

// setIf sets a field that is present and not syslog's "-".
func setIf(r record, k, v string) {
	if v != "" && v != "-" {
		r[k] = v
	}
}

// parseKlog reads klog's header; a quoted message is unquoted and the
// pairs after it are the rest.
func parseKlog(line string) (record, error) {
	m := klogLine.FindStringSubmatch(line)
	if m == nil {
		return nil, errNot(Klog)
	}
	r := record{"level": m[1], "time": m[2], "thread": m[3], "caller": m[4]}
	text := m[5]
	if strings.HasPrefix(text, `"`) {
		if q, err := strconv.QuotedPrefix(text); err == nil {
			msg, _ := strconv.Unquote(q)
			r["msg"] = msg
			setIf(r, "rest", strings.TrimSpace(text[len(q):]))
			return r, nil
		}
	}
	r["msg"] = text
	return r, nil
}

// parseHclog reads hclog's text: the module before the first ": ", the
// message, and the pairs after the last ": ".
func parseHclog(line string) (record, error) {
	m := hclogLine.FindStringSubmatch(line)
	if m == nil {
		return nil, errNot(Hclog)
	}
	r := record{"time": m[1], "level": strings.ToUpper(m[2])}
	text := m[3]
	if i := strings.Index(text, ": "); i > 0 && !strings.ContainsAny(text[:i], " =") {
		r["module"] = text[:i]
		text = text[i+2:]
	}
	if i := strings.LastIndex(text, ": "); i >= 0 {
		if _, err := logfmtPairs(text[i+2:], true); err == nil {
			r["msg"] = text[:i]
			r["rest"] = text[i+2:]
			return r, nil
		}
	}
	if _, err := logfmtPairs(text, true); err == nil && strings.Contains(text, "=") {
		r["msg"] = ""
		r["rest"] = text
		return r, nil
	}
	r["msg"] = text
	return r, nil
}

// trailingPairs splits a text into its message and the key=value pairs
// that end it.
func trailingPairs(text string) (msg, rest string) {
	for i := 0; i < len(text); i++ {
		if i > 0 && text[i-1] != ' ' {
			continue
		}
		if text[i] == ' ' {
			continue
		}
		if !strings.Contains(text[i:], "=") {
			break
		}
		if _, err := logfmtPairs(text[i:], true); err == nil {
			return strings.TrimSpace(text[:i]), text[i:]
		}
	}
	return text, ""
}

// parseJVM reads unified logging's decorators: a time with a date, an
// uptime, a level and tags, in any order, then the message.
func parseJVM(line string) (record, error) {
	r := record{}
	rest := line
	n := 0
	for {
		m := jvmDecor.FindStringSubmatch(rest)
		if m == nil {
			break
		}
		d := strings.TrimSpace(m[1])
		rest = rest[len(m[0]):]
		n++
		switch {
		case isoTime.MatchString(d):
			r["time"] = d
		case strings.HasSuffix(d, "s") && isNumber(strings.TrimSuffix(d, "s")):
			r["uptime"] = d
		case strings.HasSuffix(d, "ms") && isNumber(strings.TrimSuffix(d, "ms")):
			r["uptime"] = d
		case jvmLevel(d):
			r["level"] = d
		default:
			r["tags"] = d
		}
	}
	if n < 2 || r["level"] == nil {
		return nil, errNot(JVM)
	}
	r["msg"] = strings.TrimSpace(rest)
	return r, nil
}

func jvmLevel(s string) bool {
	switch s {
	case "trace", "debug", "info", "warning", "error", "off":
		return true
	}
	return false
}

func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil && s != ""
}

// parseSyslog reads RFC 5424: the header, the structured data (each
// SD-PARAM as its name and as SD-ID.name) and the message.
func parseSyslog(line string) (record, error) {
	m := syslogHead.FindStringSubmatch(line)
	if m == nil {
		return nil, errNot(Syslog)
	}
	r := record{"priority": m[1]}
	setIf(r, "time", m[2])
	setIf(r, "host", m[3])
	setIf(r, "app", m[4])
	setIf(r, "procid", m[5])
	setIf(r, "msgid", m[6])
	rest := line[len(m[0]):]
	if strings.HasPrefix(rest, "-") {
		rest = rest[1:]
	} else {
		var err error
		if rest, err = structuredData(rest, r); err != nil {
			return nil, err
		}
	}
	msg := strings.TrimPrefix(rest, " ")
	msg = strings.TrimPrefix(msg, "\ufeff")
	setIf(r, "msg", msg)
	return r, nil
}

// structuredData reads [id name="value" …] elements into r.
func structuredData(s string, r record) (string, error) {
	for strings.HasPrefix(s, "[") {
		s = s[1:]
		end := strings.IndexAny(s, " ]")
		if end <= 0 {
			return "", fmt.Errorf("not syslog: structured data without an id")
		}
		id := s[:end]
		s = s[end:]
		for strings.HasPrefix(s, " ") {
			s = strings.TrimLeft(s, " ")
			eq := strings.Index(s, `="`)
			if eq <= 0 {
				return "", fmt.Errorf("not syslog: a parameter of [%s] without a quoted value", id)
			}
			name := s[:eq]
			s = s[eq+2:]
			var b strings.Builder
			closed := false
			for i := 0; i < len(s); i++ {
				c := s[i]
				if c == '\\' && i+1 < len(s) && strings.IndexByte(`"\]`, s[i+1]) >= 0 {
					b.WriteByte(s[i+1])
					i++
					continue
				}
				if c == '"' {
					s, closed = s[i+1:], true
					break
				}
				b.WriteByte(c)
			}
			if !closed {
				return "", fmt.Errorf("not syslog: an unterminated value of %s.%s", id, name)
			}
			if _, ok := r[name]; !ok {
				r[name] = b.String()
			}
			r[id+"."+name] = b.String()
		}
		if !strings.HasPrefix(s, "]") {
			return "", fmt.Errorf("not syslog: [%s is not closed", id)
		}
		s = s[1:]
	}
	return s, nil
}
