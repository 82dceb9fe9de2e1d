package logs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"

	"fencelab/lab"
)

// lineRules read the facts of one file's lines in one format: the kind
// rule's groups and constants first, then the section's keys, the
// format's defaults, the top-level keys and the contract's defaults.
type lineRules struct {
	im     *Importer
	f      *fileState
	format Format
	sec    *Keys
	top    *Keys
	rest   string
}

func (im *Importer) lineRules(f *fileState, format Format) *lineRules {
	lr := &lineRules{im: im, f: f, format: format, sec: f.keys, top: &im.m.Keys}
	lr.rest = im.key(f, func(k *Keys) string { return k.Rest })
	return lr
}

// restFields parses the line's rest (a preset's text after its prefix,
// journald's MESSAGE, a pattern's group rest) into fields of the line.
func (lr *lineRules) restFields(rec record) {
	name := lr.format.restField()
	if name == "" {
		if _, ok := rec["rest"]; !ok || lr.format != Pattern {
			return
		}
		name = "rest"
	}
	text, ok := rec[name].(string)
	if !ok || text == "" {
		return
	}
	var sub record
	switch lr.rest {
	case "text":
		return
	case "jsonl":
		sub, _ = parseJSON([]byte(text))
	case "logfmt":
		sub, _ = logfmtPairs(text, false)
	default:
		if t := strings.TrimSpace(text); strings.HasPrefix(t, "{") {
			sub, _ = parseJSON([]byte(t))
		}
		if sub == nil {
			sub, _ = logfmtPairs(text, true)
		}
	}
	for k, v := range sub {
		if _, has := rec[k]; !has {
			rec[k] = v
		}
		rec["rest."+k] = v
	}
}

// keyFact is the fact of that name among a mapping's keys.
func keyFact(k *Keys, name string) *Fact {
	if k == nil {
		return nil
	}
	switch name {
	case "time":
		return k.Time
	case "actor":
		return k.Actor
	case "token":
		return k.Token
	case "scope":
		return k.Scope
	case "resource":
		return k.Resource
	case "value":
		return k.Value
	case "request":
		return k.Request
	case "op":
		return k.Op
	case "host":
		return k.Host
	case "lease":
		return k.Lease
	case "message":
		return k.Message
	}
	return nil
}

var factDefaults = map[string][]string{
	"time":    {"time", "ts", "@timestamp", "timestamp"},
	"message": {"msg", "message", "@message", "MESSAGE", "rest"},
}

// fact reads a fact of the line in the contract's order. named reports
// whether the mapping (or the rule) names where the fact is.
func (lr *lineRules) fact(rec record, name string, groups map[string]string) (string, bool) {
	v, _, _ := lr.factNamed(rec, name, groups)
	return v, v != ""
}

func (lr *lineRules) factNamed(rec record, name string, groups map[string]string) (val string, named, present bool) {
	if v, ok := groups[name]; ok {
		return v, true, v != ""
	}
	if f := keyFact(lr.sec, name); f != nil {
		v := lr.eval(rec, f)
		return v, true, v != ""
	}
	switch name {
	case "time":
		if tf := lr.format.timeField(); tf != "" {
			if v, ok := rec.get(tf); ok && strings.TrimSpace(v) != "" {
				return strings.TrimSpace(v), true, true
			}
			if lr.format != Journald {
				return "", true, false // a preset's line without its time (a JVM line with no time decorator)
			}
		}
	case "host":
		if hf := lr.format.hostField(); hf != "" {
			if v, ok := rec.get(hf); ok && strings.TrimSpace(v) != "" {
				return strings.TrimSpace(v), true, true
			}
		}
	}
	if f := keyFact(lr.top, name); f != nil {
		v := lr.eval(rec, f)
		return v, true, v != ""
	}
	for _, d := range factDefaults[name] {
		if v, ok := rec.get(d); ok && strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v), false, true
		}
	}
	return "", false, false
}

// eval reads a fact of the mapping on a line.
func (lr *lineRules) eval(rec record, f *Fact) string {
	switch {
	case f.Value != nil:
		return *f.Value
	case f.Match != nil:
		v, ok := rec.get(f.Field)
		if !ok {
			return ""
		}
		lr.im.found[f.Field] = true
		m := f.Match.FindStringSubmatch(v)
		if m == nil {
			return ""
		}
		if len(m) > 1 {
			return strings.TrimSpace(m[1])
		}
		return strings.TrimSpace(m[0])
	}
	for _, name := range f.Fields {
		if v, ok := rec.get(name); ok {
			lr.im.found[name] = true
			if v = strings.TrimSpace(v); v != "" {
				return v
			}
		}
	}
	return ""
}

// stamp reads the line's time.
func (lr *lineRules) stamp(rec record, groups map[string]string) (stamp, error) {
	v, _, ok := lr.factNamed(rec, "time", groups)
	if !ok {
		return stamp{}, errNoTime
	}
	return lr.f.times.parse(v)
}

var errNoTime = errors.New("no time")

// kind decides what the line is: version 1's kind map first, then the
// kind rules in order. It returns the kind ("" for none), the facts the
// rule's groups and constants give, and the rule.
func (lr *lineRules) kind(rec record, msg string) (string, map[string]string, *KindRule) {
	km := lr.top.Kind
	rules := lr.top.Kinds
	if lr.sec != nil {
		if lr.sec.Kind != nil {
			km = lr.sec.Kind
		}
		if lr.sec.Kinds != nil {
			rules = lr.sec.Kinds
		}
	}
	if km != nil {
		text := msg
		if km.Field != "" {
			v, ok := rec.get(km.Field)
			if ok {
				lr.im.found[km.Field] = true
			}
			text = strings.TrimSpace(v)
		}
		if k, ok := km.Values[text]; ok {
			return k, nil, nil
		}
	}
	for i := range rules {
		r := &rules[i]
		text := msg
		if r.Field != "" {
			v, ok := rec.get(r.Field)
			if !ok {
				continue
			}
			lr.im.found[r.Field] = true
			text = v
		}
		var groups map[string]string
		if r.Is != nil {
			if text != *r.Is {
				continue
			}
		} else {
			m := r.re.FindStringSubmatch(text)
			if m == nil {
				continue
			}
			for gi, name := range r.re.SubexpNames() {
				if name != "" && gi < len(m) && m[gi] != "" {
					if groups == nil {
						groups = map[string]string{}
					}
					groups[name] = strings.TrimSpace(m[gi])
				}
			}
		}
		if !r.whereHolds(rec) {
			continue
		}
		groups = r.constants(groups)
		return r.Kind, groups, r
	}
	return "", nil, nil
}

func (r *KindRule) whereHolds(rec record) bool {
	for f, re := range r.where {
		v, ok := rec.get(f)
		if !ok || !re.MatchString(v) {
			return false
		}
	}
	return true
}

// constants adds the rule's constant facts under its groups.
func (r *KindRule) constants(g map[string]string) map[string]string {
	set := func(name string, v *string) {
		if v == nil {
			return
		}
		if _, ok := g[name]; ok {
			return
		}
		if g == nil {
			g = map[string]string{}
		}
		g[name] = *v
	}
	set("actor", r.Actor)
	set("token", r.Token)
	set("scope", r.Scope)
	set("resource", r.Resource)
	set("value", r.Value)
	set("request", r.Request)
	set("op", r.Op)
	set("observed", r.Observed)
	set("lease", r.Lease)
	set("duration", r.Duration)
	return g
}

// entry reads the facts of a matched line. A nil entry with no error is
// a line left out and counted.
func (lr *lineRules) entry(rec record, kind string, groups map[string]string, rule *KindRule) (*entry, error) {
	e := &entry{kind: kind}
	st, err := lr.stamp(rec, groups)
	switch {
	case err == nil:
		e.at, e.hasTime = st, true
		e.subsecond = subsecondTime(lr.timeText(rec, groups))
	case errors.Is(err, errNoTime):
		if _, named, _ := lr.factNamed(rec, "time", groups); named {
			lr.f.stats.LeftOut[leftNoTime]++
			return nil, fmt.Errorf("%s line has no time (%s)", kind, lr.describe("time"))
		}
	default:
		lr.f.stats.LeftOut[leftNoTime]++
		return nil, err
	}
	get := func(name string) string { v, _ := lr.fact(rec, name, groups); return v }
	var named bool
	e.actor, named, e.hasActor = lr.factNamed(rec, "actor", groups)
	e.actorNamed = named
	e.scope, e.resource, e.request, e.op = get("scope"), get("resource"), get("request"), get("op")
	e.host, e.lease = get("host"), get("lease")
	e.value, e.hasValue = lr.fact(rec, "value", groups)
	if tv := get("token"); tv != "" {
		t, err := strconv.ParseInt(tv, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("token %q (%s) is not an integer", clipText(tv), lr.describe("token"))
		}
		e.token = &t
	}
	switch kind {
	case string(lab.Write), string(lab.Deliver), kindOutcome:
		if err := lr.observed(rec, groups, e); err != nil {
			return nil, err
		}
	}
	if d, ok := groups["duration"]; ok && kind == string(lab.Pause) {
		unit := ""
		if rule != nil {
			unit = rule.Unit
		}
		dur, err := parseDuration(d, unit)
		if err != nil {
			return nil, fmt.Errorf("pause duration: %v", err)
		}
		e.duration, e.hasDuration = dur, true
	}
	switch kind {
	case string(lab.Deliver), string(lab.Commit):
		if e.request == "" {
			lr.f.stats.LeftOut[leftNoRequest]++
			return nil, fmt.Errorf("%s line has no request id (%s): it cannot be matched to its send", kind, lr.describe("request"))
		}
	case kindOutcome:
		if e.observed == "" {
			return nil, fmt.Errorf("outcome line gives no outcome (observed)")
		}
		if e.request == "" {
			lr.f.stats.LeftOut[leftNoRequest]++
			return nil, fmt.Errorf("outcome line has no request id (%s)", lr.describe("request"))
		}
	case string(lab.Restart):
		if e.resource == "" && e.scope == "" {
			return nil, fmt.Errorf("restart line names neither a resource (%s) nor a scope (%s)", lr.describe("resource"), lr.describe("scope"))
		}
	case kindBinding:
		if e.lease == "" {
			return nil, fmt.Errorf("binding line names no lease")
		}
	case kindDropped:
		e.count = 0
		if c, ok := groups["count"]; ok {
			e.count, _ = strconv.Atoi(c)
		}
		if s, ok := groups["since"]; ok {
			st, err := lr.f.times.parse(strings.TrimSuffix(s, "."))
			if err == nil {
				e.since = &st
			}
		}
		if !e.hasTime {
			return nil, fmt.Errorf("a drop notice with no time")
		}
	}
	return e, nil
}

// timeText is the line's time as written.
func (lr *lineRules) timeText(rec record, groups map[string]string) string {
	v, _, _ := lr.factNamed(rec, "time", groups)
	return v
}

// describe names where the mapping looks for a fact, for an error.
func (lr *lineRules) describe(name string) string {
	for _, k := range []*Keys{lr.sec, lr.top} {
		if f := keyFact(k, name); f != nil {
			b, _ := json.Marshal(f)
			return "mapping's " + name + " " + string(b)
		}
	}
	if name == "time" && lr.format.timeField() != "" {
		return "the " + string(lr.format) + " line's time"
	}
	if d := factDefaults[name]; d != nil {
		return "none of " + strings.Join(d, ", ")
	}
	return "the mapping names no " + name
}

// observed reads what the resource was seen to do with the line's request.
func (lr *lineRules) observed(rec record, groups map[string]string, e *entry) error {
	om := lr.top.Observed
	if lr.sec != nil && lr.sec.Observed != nil {
		om = lr.sec.Observed
	}
	if v, ok := groups["observed"]; ok {
		if om != nil {
			if o, ok := om.Values[v]; ok {
				e.observed = o
				return nil
			}
		}
		if !Outcome(v).valid() {
			return fmt.Errorf("observed %q is not applied, rejected or suppressed (nor listed in observed.values)", clipText(v))
		}
		e.observed = Outcome(v)
		return nil
	}
	if om == nil {
		return nil
	}
	if om.Field != "" {
		if v, ok := rec.get(om.Field); ok {
			lr.im.found[om.Field] = true
			if o, ok := om.Values[strings.TrimSpace(v)]; ok {
				e.observed = o
				return nil
			}
		}
	}
	for _, r := range om.Rules {
		field := r.Field
		if field == "" {
			field = om.Field
		}
		var text string
		if field == "" {
			text, _ = lr.fact(rec, "message", nil)
		} else {
			v, ok := rec.get(field)
			if !ok {
				continue
			}
			text = v
		}
		if (r.Is != nil && text == *r.Is) || (r.re != nil && r.re.MatchString(text)) {
			e.observed = r.Observed
			return nil
		}
	}
	if om.Default != "" && e.kind != kindOutcome {
		e.observed, e.byDefault = om.Default, true
	}
	return nil
}

// subsecondTime reports whether a time is written with digits below the
// second: a fraction, or Unix milliseconds and finer.
func subsecondTime(s string) bool {
	s = strings.TrimSpace(s)
	if allDigits(strings.ReplaceAll(s, ".", "")) {
		whole, frac, _ := strings.Cut(s, ".")
		return frac != "" || len(whole) >= 12
	}
	for i := 0; i+1 < len(s); i++ {
		if (s[i] == '.' || s[i] == ',') && i >= 2 && s[i-1] >= '0' && s[i-1] <= '9' && s[i+1] >= '0' && s[i+1] <= '9' {
			return true
		}
	}
	return false
}

var (
	logplexDrop  = regexp.MustCompile(`Error L10 \(output buffer overflow\): (\d+) messages dropped since (\S+)`)
	journaldDrop = regexp.MustCompile(`Suppressed (\d+) messages from (\S+)`)
	rsyslogDrop  = regexp.MustCompile(`imuxsock lost (\d+) messages`)
)

// builtinDrop reads the drop notices of logplex, journald and rsyslog.
func builtinDrop(line string) (map[string]string, bool) {
	if m := logplexDrop.FindStringSubmatch(line); m != nil {
		return map[string]string{"count": m[1], "since": strings.TrimRight(strings.TrimSuffix(m[2], "."), `"`)}, true
	}
	if m := journaldDrop.FindStringSubmatch(line); m != nil {
		return map[string]string{"count": m[1]}, true
	}
	if m := rsyslogDrop.FindStringSubmatch(line); m != nil {
		return map[string]string{"count": m[1]}, true
	}
	return nil, false
}

// needlesOf lists literals one of which every line a rule can match
// holds as written, or nil when some rule has none (then every line is
// read whole).
func needlesOf(m *Mapping) [][]byte {
	out := [][]byte{[]byte("Error L10"), []byte("Suppressed "), []byte("imuxsock lost")}
	add := func(lit string) bool {
		lit = safeLiteral(lit)
		if len(lit) < 2 {
			return false
		}
		for _, n := range out {
			if bytes.Equal(n, []byte(lit)) {
				return true
			}
		}
		out = append(out, []byte(lit))
		return true
	}
	for _, k := range append([]*Keys{&m.Keys}, sectionKeys(m)...) {
		if k.Kind != nil {
			for v := range k.Kind.Values {
				if !add(v) {
					return nil
				}
			}
		}
		for _, r := range k.Kinds {
			if r.Is != nil {
				if !add(*r.Is) {
					return nil
				}
				continue
			}
			if !add(requiredLiteral(r.Match)) {
				return nil
			}
		}
	}
	return out
}

func sectionKeys(m *Mapping) []*Keys {
	out := make([]*Keys, len(m.Files))
	for i := range m.Files {
		out[i] = &m.Files[i].Keys
	}
	return out
}

// safeLiteral is the longest part of a literal that a log writes as it
// is: no quote, backslash, HTML character or byte outside printable
// ASCII, which JSON or logfmt may escape.
func safeLiteral(s string) string {
	best, cur := "", 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] < ' ' || s[i] > '~' || strings.IndexByte(`"\<>&`, s[i]) >= 0 {
			if i-cur > len(best) {
				best = s[cur:i]
			}
			cur = i + 1
		}
	}
	return best
}

// requiredLiteral is a literal every match of the expression contains,
// or "" when it has none (an alternation, a class, case folding).
func requiredLiteral(expr string) string {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return ""
	}
	return literalOf(re.Simplify())
}

func literalOf(re *syntax.Regexp) string {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return ""
		}
		return string(re.Rune)
	case syntax.OpCapture, syntax.OpPlus:
		return literalOf(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return literalOf(re.Sub[0])
		}
	case syntax.OpConcat:
		best, run := "", ""
		for _, sub := range re.Sub {
			if sub.Op == syntax.OpLiteral && sub.Flags&syntax.FoldCase == 0 {
				run += string(sub.Rune)
				continue
			}
			if len(run) > len(best) {
				best = run
			}
			run = ""
			if l := literalOf(sub); len(l) > len(best) {
				best = l
			}
		}
		if len(run) > len(best) {
			best = run
		}
		return best
	}
	return ""
}

// bytesValidJSON reports whether t is a JSON object.
func bytesValidJSON(t []byte) bool { return json.Valid(t) }
