package logs

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"fencelab/lab"
)

// ev is an event of the timeline being built: a line's, or one the
// import inferred or computed.
type ev struct {
	*entry
	kind        lab.Kind
	inferred    bool   // an inferred expiry, release or send
	computed    bool   // a pause computed from a duration
	cause       *ev    // the line that forced an inferred event
	cites       []*ev  // other lines the note cites
	why         string // the inferred event's words
	host        string
	rank        int // the host's file order, for ties
	send        *ev // a deliver's or commit's send
	grant       *ev // the acquire whose token a write or send logs
	incarnation int // 2, 3, … after a crash
	crash       *ev // the crash an incarnation follows
	origActor   string
	shift       time.Duration
	key         string // a send's unique request
	after       []*ev  // for an inferred event: what it must follow (skew)
	before      *ev    // for an inferred event: what it must precede (skew)
}

func (e *ev) at() time.Time { return e.entry.t.Add(e.shift) }

// pipeline is one Finish: the entries in the order the contract builds
// the timeline in.
type pipeline struct {
	im         *Importer
	gaps       []Gap
	hosts      []string
	queue      map[string][]*ev
	events     []*ev
	offsets    map[string]time.Duration
	offsetWhy  map[string]*Offset
	contradict *Contradiction
	duplicates []Duplicate
	drops      []Drop
	dropEvs    []*entry
	bound      map[string]string // lease to actor
	noTime     bool
}

// Finish builds the scenario from the lines read and judges it.
func (im *Importer) Finish(ctx context.Context) (*Result, error) {
	p := &pipeline{im: im, queue: map[string][]*ev{}, offsets: map[string]time.Duration{},
		offsetWhy: map[string]*Offset{}, bound: map[string]string{}}
	if err := im.refusal(); err != nil {
		return nil, err
	}
	im.resolveHosts()
	if err := p.date(); err != nil {
		return nil, err
	}
	p.hostQueues()
	p.outcomes()
	p.bindings()
	p.actors()
	p.pauses()
	if err := p.tooMany(); err != nil {
		return nil, err
	}
	p.pair()
	if len(p.all()) == 0 {
		return nil, p.nothing()
	}
	p.clocks()
	p.merge()
	p.lineOrder()
	p.incarnations()
	p.repeatedGrants()
	p.tokens()
	p.leases()
	if len(p.events) > lab.MaxEvents {
		return nil, &Error{Reasons: []string{fmt.Sprintf("%d events, the model allows %d: import a shorter "+
			"window with --since and --until", len(p.events), lab.MaxEvents)}}
	}
	return p.result(ctx)
}

// refusal is why the lines read make no scenario, before any is built.
func (im *Importer) refusal() error {
	var reasons []string
	if im.opt.Strict {
		for _, p := range im.problems {
			reasons = append(reasons, p.String())
		}
		if im.nProblems > len(im.problems) {
			reasons = append(reasons, fmt.Sprintf("and %d more malformed lines", im.nProblems-len(im.problems)))
		}
	}
	missing := im.missingFields()
	kindMissing := false
	for _, f := range im.kindFields() {
		if !im.found[f] {
			kindMissing = true
		}
	}
	events := 0
	for _, e := range im.entries {
		if modelKind(e.kind) || e.kind == kindOutcome {
			events++
		}
	}
	parsed := 0
	for _, f := range im.files {
		parsed += f.stats.Parsed
	}
	if events == 0 && kindMissing && parsed > 0 {
		reasons = append(reasons, missing...)
	} else {
		for _, msg := range missing {
			im.problems = append(im.problems, Problem{Source: "mapping", Message: msg})
		}
	}
	if im.dropped > 0 {
		reasons = append(reasons, fmt.Sprintf("more than %d matching lines, the model replays at most %d "+
			"events: import a shorter window with --since and --until", maxEntries, lab.MaxEvents))
	}
	if events == 0 && len(reasons) == 0 {
		reasons = append(reasons, im.noEvent()...)
	}
	if len(reasons) == 0 {
		return nil
	}
	if !im.opt.Strict {
		for _, p := range im.problems {
			reasons = append(reasons, p.String())
		}
	}
	return &Error{Reasons: reasons}
}

// kindFields are the fields the kind map reads, which without them no
// line can be an event.
func (im *Importer) kindFields() []string {
	var out []string
	for _, k := range append([]*Keys{&im.m.Keys}, sectionKeys(im.m)...) {
		if k.Kind != nil && k.Kind.Field != "" {
			out = append(out, k.Kind.Field)
		}
	}
	return out
}

// missingFields names the mapped fields no line has.
func (im *Importer) missingFields() []string {
	if im.lines == 0 {
		return nil
	}
	var names []string
	for _, k := range append([]*Keys{&im.m.Keys}, sectionKeys(im.m)...) {
		for _, f := range k.facts() {
			names = append(names, f.names()...)
		}
		if k.Kind != nil && k.Kind.Field != "" {
			names = append(names, k.Kind.Field)
		}
		if k.Observed != nil && k.Observed.Field != "" {
			names = append(names, k.Observed.Field)
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, f := range names {
		if f == "" || seen[f] || im.found[f] || im.keys[f] { // a line has it, though no rule read it there
			continue
		}
		seen[f] = true
		out = append(out, fmt.Sprintf("the mapping names field %q, which no line has (fields seen: %s)", f, im.seenKeys()))
	}
	return out
}

func (im *Importer) seenKeys() string {
	keys := make([]string, 0, len(im.keys))
	for k := range im.keys {
		if !strings.HasPrefix(k, "rest.") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	if len(keys) == 0 {
		return "none"
	}
	return strings.Join(keys, ", ")
}

// noEvent says, per file, what became of its lines.
func (im *Importer) noEvent() []string {
	if im.lines == 0 {
		return []string{"no event: the input has no line of text"}
	}
	out := []string{"no event: no line is an event of the model"}
	matched := 0
	for _, f := range im.files {
		s := f.stats
		matched += s.Matched
		left := 0
		var why []string
		for _, k := range []string{leftNoTime, leftNoRequest, leftOutside, leftDuplicate} {
			if n := s.LeftOut[k]; n > 0 {
				left += n
				why = append(why, k)
			}
		}
		line := fmt.Sprintf("%s: %d lines read, %d parsed, %d matched a kind rule, %d left out", f.label, s.Read, s.Parsed, s.Matched, left)
		for i, k := range why {
			w := k
			if len(why) > 1 {
				w += fmt.Sprintf(" %d", s.LeftOut[k])
			}
			if k == leftNoTime {
				w += " (" + im.lineRules(f, firstFormat(f)).describe("time") + "; fields seen: " + im.seenKeys() + ")"
			}
			sep := ", "
			if i == 0 {
				sep = ": "
			}
			line += sep + w
		}
		out = append(out, line)
	}
	if matched == 0 && len(im.msgs) > 0 {
		q := make([]string, len(im.msgs))
		for i, m := range im.msgs {
			q[i] = fmt.Sprintf("%q", clipText(m))
		}
		out = append(out, "no line matched a kind rule; the first message texts seen: "+strings.Join(q, ", "))
	}
	return out
}

func firstFormat(f *fileState) Format {
	if len(f.formats) == 0 {
		return CSV
	}
	return f.formats[0]
}

// resolveHosts names each file's host: its stem, or its whole base name
// when another file of the import, not of its rotation set, has the same
// stem. A rotation set is one host, read oldest first.
func (im *Importer) resolveHosts() {
	set := func(f *fileState) string {
		b := f.base
		if f.rotation > 0 {
			b = b[:strings.LastIndexByte(b, '.')]
		}
		return filepath.Join(filepath.Dir(f.name), b)
	}
	stem := func(f *fileState) string {
		b := filepath.Base(set(f))
		if i := strings.IndexByte(b, '.'); i > 0 {
			return b[:i]
		}
		return b
	}
	for _, f := range im.files {
		f.host = stem(f)
		for _, g := range im.files {
			if g != f && set(g) != set(f) && stem(g) == stem(f) {
				f.host = filepath.Base(set(f))
			}
		}
		f.stats.Host, f.stats.File = f.host, f.label
		f.stats.Format = firstFormat(f)
	}
	// Read order: files by first appearance of their set, each set oldest first.
	firstOf := map[string]int{}
	for _, f := range im.files {
		if _, ok := firstOf[set(f)]; !ok {
			firstOf[set(f)] = f.index
		}
	}
	order := slices.Clone(im.files)
	slices.SortStableFunc(order, func(a, b *fileState) int {
		if d := firstOf[set(a)] - firstOf[set(b)]; d != 0 {
			return d
		}
		ra, rb := a.rotation, b.rotation
		if ra == 0 {
			ra = -1
		}
		if rb == 0 {
			rb = -1
		}
		return rb - ra // highest .N first, the file without a suffix last
	})
	for i, f := range order {
		f.rank = i
	}
}

// date gives every entry its time: yearless times the year nearest the
// earliest dated time, then --since and --until.
func (p *pipeline) date() error {
	im := p.im
	hosts := map[string]bool{}
	for _, e := range im.entries {
		if !e.hasTime {
			continue
		}
		if e.at.noYear {
			f := im.files[e.file]
			if im.earliest.IsZero() {
				return &Error{Reasons: []string{fmt.Sprintf("%s: its times have no year (%s), and no line of "+
					"the import has one: set the mapping's year", f.name, e.at.t.Format("Jan 2 15:04:05"))}}
			}
			e.t = nearestYear(e.at, im.earliest)
		} else {
			e.t = e.at.t
		}
	}
	kept := im.entries[:0]
	for _, e := range im.entries {
		f := im.files[e.file]
		h := e.host
		if h == "" {
			h = f.host
		}
		hosts[h] = true
		if e.hasTime && ((!im.opt.Since.IsZero() && e.t.Before(im.opt.Since)) || (!im.opt.Until.IsZero() && e.t.After(im.opt.Until))) {
			f.stats.LeftOut[leftOutside]++
			continue
		}
		kept = append(kept, e)
	}
	im.entries = kept
	if len(hosts) > 1 {
		for _, e := range im.entries {
			if !e.hasTime && modelKind(e.kind) {
				p.noTime = true
			}
		}
	}
	if p.noTime {
		return &Error{Reasons: []string{"several files need a time field on every event line: without one " +
			"their lines cannot be put in one order (name the time field in the mapping)"}}
	}
	return nil
}

// nearestYear dates a yearless stamp in the year that puts it nearest ref.
func nearestYear(s stamp, ref time.Time) time.Time {
	best := s.withYear(ref.Year())
	for _, y := range []int{ref.Year() - 1, ref.Year() + 1} {
		if t := s.withYear(y); t.Sub(ref).Abs() < best.Sub(ref).Abs() {
			best = t
		}
	}
	return best
}

// hostQueues puts each host's entries in its line order, leaving out
// copies of a line (an at-least-once shipper's) and setting aside drop
// notices and bindings.
func (p *pipeline) hostQueues() {
	im := p.im
	sort.SliceStable(im.entries, func(i, j int) bool {
		a, b := im.entries[i], im.entries[j]
		if ra, rb := im.files[a.file].rank, im.files[b.file].rank; ra != rb {
			return ra < rb
		}
		return a.line < b.line
	})
	seen := map[string]map[uint64]*entry{}
	for _, e := range im.entries {
		f := im.files[e.file]
		h := e.host
		if h == "" {
			h = f.host
		}
		e.host = h
		if e.subsecond {
			if seen[h] == nil {
				seen[h] = map[uint64]*entry{}
			}
			if first, ok := seen[h][e.hash]; ok {
				f.stats.LeftOut[leftDuplicate]++
				if modelKind(e.kind) {
					d := Duplicate{Source: e.source(im), SameAs: first.source(im)}
					p.duplicates = append(p.duplicates, d)
					p.gap("duplicate", fmt.Sprintf("%s repeats %s character for character, time included: a "+
						"log shipper sent it twice, so it is one event", d.Source, d.SameAs), d.Source, d.SameAs)
				}
				continue
			}
			seen[h][e.hash] = e
		}
		switch e.kind {
		case kindDropped:
			p.dropEvs = append(p.dropEvs, e)
			continue
		case kindBinding:
			continue // read by bindings
		}
		if !slices.Contains(p.hosts, h) {
			p.hosts = append(p.hosts, h)
		}
		p.queue[h] = append(p.queue[h], &ev{entry: e, kind: lab.Kind(e.kind), host: h, rank: f.rank})
	}
	p.dropWindows()
}

// dropWindows turns drop notices into gaps with their windows.
func (p *pipeline) dropWindows() {
	for _, e := range p.dropEvs {
		from := e.t.Add(-30 * time.Second)
		if e.since != nil {
			from = nearestOr(e.since, p.im)
		}
		to := e.t
		d := Drop{Source: e.source(p.im), Count: e.count, From: from.Add(-p.im.opt.Skew).UTC(), To: to.Add(p.im.opt.Skew).UTC()}
		p.drops = append(p.drops, d)
		n := "some"
		if e.count > 0 {
			n = fmt.Sprint(e.count)
		}
		p.gap("dropped", fmt.Sprintf("the logs dropped %s lines here, between %s and %s: events of that "+
			"window may be missing, and this is no evidence of clock skew",
			n, d.From.Format("15:04:05.000"), d.To.Format("15:04:05.000")), d.Source)
	}
}

func nearestOr(s *stamp, im *Importer) time.Time {
	if s.noYear {
		return nearestYear(*s, im.earliest)
	}
	return s.t
}

// all is every event of the host queues, in host order.
func (p *pipeline) all() []*ev {
	var out []*ev
	for _, h := range p.hosts {
		out = append(out, p.queue[h]...)
	}
	return out
}

// outcomes applies each outcome line to the latest earlier deliver or
// write of its request on its host; with none, it is a deliver.
func (p *pipeline) outcomes() {
	for _, h := range p.hosts {
		q := p.queue[h]
		kept := q[:0]
		for _, e := range q {
			if e.entry.kind != kindOutcome {
				kept = append(kept, e)
				continue
			}
			var target *ev
			for i := len(kept) - 1; i >= 0; i-- {
				k := kept[i]
				if (k.kind == lab.Deliver || k.kind == lab.Write) && k.request == e.request {
					target = k
					break
				}
			}
			if target == nil {
				e.kind = lab.Deliver
				e.entry.kind = string(lab.Deliver)
				kept = append(kept, e)
				continue
			}
			target.observed, target.byDefault = e.observed, false
			target.cites = append(target.cites, e)
		}
		p.queue[h] = kept
	}
}

// bindings binds leases to actors: binding lines and event lines that
// name both, the first binding of a lease winning.
func (p *pipeline) bindings() {
	conflict := map[string]bool{}
	for _, e := range p.im.entries {
		if e.lease == "" || (e.kind != kindBinding && (!modelKind(e.kind) || !e.hasActor)) {
			continue
		}
		actor := e.actor
		if !e.hasActor {
			actor = e.host // a binding line is its host's unless it names an actor
		}
		if a, ok := p.bound[e.lease]; ok {
			if a != actor && !conflict[e.lease] {
				conflict[e.lease] = true
				p.gap("binding-conflict", fmt.Sprintf("lease %s is bound to %s and, at %s, to %s: "+
					"the first binding is kept", e.lease, a, e.source(p.im), actor), e.source(p.im))
			}
			continue
		}
		p.bound[e.lease] = actor
	}
}

// actors gives each event line without an actor the actor bound to its
// lease, else its host.
func (p *pipeline) actors() {
	for _, e := range p.all() {
		switch e.kind {
		case lab.Deliver, lab.Commit, lab.Restart:
			continue
		}
		if e.hasActor {
			continue
		}
		if a, ok := p.bound[e.lease]; ok && e.lease != "" {
			e.actor, e.hasActor = a, true
			continue
		}
		e.actor, e.hasActor = e.host, true
		if e.entry.actorNamed {
			p.gap("actor-assumed", fmt.Sprintf("this %s line names no actor: its host %s is taken as the actor", e.kind, e.host), e.source(p.im))
		}
	}
}

// pauses turns a pause logged when it ended, with its duration, into a
// computed pause and a resume at the line.
func (p *pipeline) pauses() {
	for _, h := range p.hosts {
		q := p.queue[h]
		var out []*ev
		for _, e := range q {
			if e.kind != lab.Pause || !e.hasDuration {
				out = append(out, e)
				continue
			}
			start := e.entry.t.Add(-e.duration)
			pe := *e.entry
			pe.t = start
			pause := &ev{entry: &pe, kind: lab.Pause, computed: true, host: h, rank: e.rank}
			resume := &ev{entry: e.entry, kind: lab.Resume, host: h, rank: e.rank}
			at := len(out)
			for at > 0 && out[at-1].entry.t.After(start) {
				at--
			}
			out = slices.Insert(out, at, pause)
			out = append(out, resume)
		}
		p.queue[h] = out
	}
}

func (p *pipeline) tooMany() error {
	n := len(p.all())
	if n > lab.MaxEvents {
		return &Error{Reasons: []string{fmt.Sprintf("%d events, the model allows %d: import a shorter "+
			"window with --since and --until", n, lab.MaxEvents)}}
	}
	return nil
}

func (p *pipeline) gap(kind, words string, sources ...string) {
	p.gaps = append(p.gaps, Gap{Kind: kind, Sources: sources, Words: words})
}

func (p *pipeline) src(e *ev) string {
	if e.inferred && e.cause != nil {
		return p.src(e.cause)
	}
	return e.source(p.im)
}

// nothing explains an import whose every event was left out.
func (p *pipeline) nothing() error {
	reasons := []string{"no event left: every event line is a deliver whose send is not in the logs (a worker's log may be missing)"}
	for _, g := range p.gaps {
		reasons = append(reasons, strings.Join(g.Sources, ", ")+": "+g.Words)
	}
	return &Error{Reasons: reasons}
}
