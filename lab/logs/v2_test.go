package logs

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"fencelab/lab"
)

func gapKinds(res *Result) map[string]int {
	out := map[string]int{}
	for _, g := range res.Gaps {
		out[g.Kind]++
	}
	return out
}

func timeline(res *Result) string {
	var parts []string
	for _, e := range res.Scenario.Events {
		parts = append(parts, strings.TrimSpace(e.Actor+" "+string(e.Kind)))
	}
	return strings.Join(parts, ", ")
}

// skewMap maps the logfmt lines of the clock tests.
const skewMap = `{"time": "t", "actor": "who", "token": "tok", "request": "req", "value": "val",
 "kinds": [{"is": "grant", "kind": "acquire"}, {"is": "expired", "kind": "expire"}, {"is": "sent", "kind": "send"},
  {"match": "^write (?<observed>applied|rejected)$", "kind": "deliver"}]}`

// TestSkewedHostKeepsReceiverOrder is the false verdict: a
// worker's clock 1.1 s ahead must not move the receiver's deliver past
// its own later line.
func TestSkewedHostKeepsReceiverOrder(t *testing.T) {
	sched := "t=2026-11-09T10:00:09.000Z who=worker-1 msg=grant tok=7\nt=2026-11-09T10:00:10.100Z who=worker-1 msg=expired\nt=2026-11-09T10:00:10.200Z who=worker-2 msg=grant tok=8\n"
	w1 := "t=2026-11-09T10:00:10.900Z who=worker-1 msg=sent req=r-7 tok=7 val=a\n"
	w2 := "t=2026-11-09T10:00:10.400Z who=worker-2 msg=sent req=r-8 tok=8 val=b\n"
	recv := "t=2026-11-09T10:00:10.000Z msg=\"write applied\" req=r-7 tok=7\nt=2026-11-09T10:00:10.500Z msg=\"write applied\" req=r-8 tok=8\n"
	files := []file{{"lease.log", sched}, {"worker-1.log", w1}, {"worker-2.log", w2}, {"receiver.log", recv}}
	res, err := run(t, skewMap, Options{}, files...)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := timeline(res), "worker-1 acquire, worker-1 send, deliver, worker-1 expire, worker-2 acquire, worker-2 send, deliver"; got != want {
		t.Errorf("timeline = %s\nwant       %s", got, want)
	}
	if len(res.Clocks.Offsets) != 1 || res.Clocks.Offsets[0].Host != "worker-1" || res.Clocks.Offsets[0].OffsetMS != -900 {
		t.Fatalf("offsets = %+v, want worker-1 at -900ms", res.Clocks.Offsets)
	}
	if w := res.Clocks.Offsets[0].Words; !strings.Contains(w, "worker-1.log:1 sent r-7 after receiver.log:1 applied it") {
		t.Errorf("offset words = %q", w)
	}
	for _, v := range res.Against {
		if v.Agrees && strings.Contains(v.Words, "after it had applied") {
			t.Errorf("%s: %s: the receiver's own log shows 7 applied before 8", v.Policy, v.Words)
		}
	}
	// With a skew, no ordering lets a worker use a token before its grant.
	res, err = run(t, skewMap, Options{Explore: true, Skew: 1500 * time.Millisecond}, files...)
	if err != nil {
		t.Fatal(err)
	}
	for _, pe := range res.Orderings.Policies {
		if pe.Policy == lab.Unfenced && pe.ByClass[lab.Corrupting].Int64() == res.Orderings.Orderings.Int64() {
			t.Errorf("unfenced corrupts in every ordering (%s): the receiver's order is kept in none", pe.ByClass[lab.Corrupting])
		}
	}
}

// TestContradiction: a cycle of constraints keeps the offsets at zero.
func TestContradiction(t *testing.T) {
	a := "t=2026-11-09T10:00:01.000Z who=A msg=sent req=r1 tok=1 val=x\nt=2026-11-09T10:00:01.500Z msg=\"write applied\" req=r2\n"
	b := "t=2026-11-09T10:00:00.000Z msg=\"write applied\" req=r1\nt=2026-11-09T10:00:03.000Z who=B msg=sent req=r2 val=y\n"
	res, err := run(t, skewMap, Options{}, file{"a.log", a}, file{"b.log", b})
	if err != nil {
		t.Fatal(err)
	}
	if res.Clocks.Contradiction == nil || len(res.Clocks.Offsets) != 0 {
		t.Errorf("clocks = %+v, want a contradiction and no offset", res.Clocks)
	}
	if k := gapKinds(res); k["clock-contradiction"] != 1 || k["deliver-before-send"] != 2 {
		t.Errorf("gaps = %v, want one contradiction and two delivers placed after their sends", k)
	}
}

// TestHerokuIncarnationDropsDuplicates reads heroku logs: a duplicated
// line, a crash and a restart, and logplex's drop notice.
func TestHerokuIncarnationDropsDuplicates(t *testing.T) {
	logs := strings.Join([]string{
		`2026-11-09T11:30:00.002000+00:00 app[worker.1]: time=2026-11-09T11:30:00.001Z level=INFO msg="lease granted" token=7`,
		`2026-11-09T11:30:00.100000+00:00 app[worker.1]: time=2026-11-09T11:30:00.099Z level=INFO msg="write sent" token=7 req=r-0191 value=v7`,
		`2026-11-09T11:30:00.400000+00:00 app[store.1]: time=2026-11-09T11:30:00.399Z level=INFO msg="write applied" req=r-0191 token=7`,
		`2026-11-09T11:30:00.400000+00:00 app[store.1]: time=2026-11-09T11:30:00.399Z level=INFO msg="write applied" req=r-0191 token=7`,
		`2026-11-09T11:30:01.000000+00:00 app[worker.1]: panic: runtime error: invalid memory address or nil pointer dereference`,
		`2026-11-09T11:30:01.060000+00:00 heroku[worker.1]: State changed from up to crashed`,
		`2026-11-09T11:30:02.520000+00:00 heroku[logplex]: Error L10 (output buffer overflow): 41 messages dropped since 2026-11-09T11:30:02.39Z.`,
		`2026-11-09T11:30:02.500000+00:00 app[store.1]: time=2026-11-09T11:30:02.499Z level=INFO msg="write applied" req=r-0192 token=8`,
		`2026-11-09T11:30:03.000000+00:00 app[worker.1]: time=2026-11-09T11:30:03.000Z level=INFO msg="lease granted" token=9`,
		`2026-11-09T11:30:03.100000+00:00 app[worker.1]: time=2026-11-09T11:30:03.100Z level=INFO msg="write sent" token=9 req=r-0192 value=v9`,
	}, "\n")
	m := `{"token": "token", "request": "req", "value": "value", "actor": "dyno",
	 "kinds": [{"is": "lease granted", "kind": "acquire"}, {"is": "write sent", "kind": "send"},
	  {"match": "^write (?<observed>applied|rejected)$", "kind": "deliver"}, {"is": "State changed from up to crashed", "kind": "crash"}]}`
	res, err := run(t, m, Options{}, file{"heroku-logs.txt", logs})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Duplicates) != 1 || res.Duplicates[0] != (Duplicate{Source: "heroku-logs.txt:4", SameAs: "heroku-logs.txt:3"}) {
		t.Errorf("duplicates = %v", res.Duplicates)
	}
	if len(res.Drops) != 1 || res.Drops[0].Count != 41 || !res.Drops[0].From.Equal(time.Date(2026, 11, 9, 11, 30, 2, 390e6, time.UTC)) {
		t.Errorf("drops = %+v", res.Drops)
	}
	if len(res.Clocks.Offsets) != 0 {
		t.Errorf("offsets = %+v: a drop notice is no evidence of skew", res.Clocks.Offsets)
	}
	k := gapKinds(res)
	if k["duplicate"] != 1 || k["dropped"] != 1 || k["inferred-send"] != 1 || k["incarnation"] != 1 || k["inferred-expiry"] != 1 {
		t.Errorf("gaps = %v", k)
	}
	// The send the drop lost is inferred from the deliver, by the actor of
	// the request's later send: worker.1 after its crash, incarnation 2.
	want := "A acquire, A send, deliver, A crash, A_2 send, deliver, A expire, A_2 acquire, A_2 send"
	if got := timeline(res); got != want {
		t.Errorf("timeline = %s\nwant       %s", got, want)
	}
	evs := res.Scenario.Events
	if !strings.HasPrefix(evs[4].Note, "inferred: heroku-logs.txt:8") || evs[4].Token == nil || *evs[4].Token != 8 {
		t.Errorf("inferred send = %+v, want the deliver's line and token 8", evs[4])
	}
	if !strings.Contains(evs[7].Note, "incarnation 2 of worker.1, after the crash at heroku-logs.txt:6") {
		t.Errorf("incarnation note = %q", evs[7].Note)
	}
	var leg *Rename
	for i := range res.Legend {
		if res.Legend[i].Incarnation == 2 {
			leg = &res.Legend[i]
		}
	}
	if leg == nil || leg.Name != "A_2" || leg.Since != "heroku-logs.txt:8" {
		t.Errorf("legend = %+v, want A_2, incarnation 2 since heroku-logs.txt:8", res.Legend)
	}
}

// TestPresets reads one event line of each text preset and journald.
func TestPresets(t *testing.T) {
	tests := []struct {
		format, line, field, want string
	}{
		{"klog", `I1105 07:41:00.000000       1 leaderelection.go:271] "Successfully acquired lease" lock="default/report-writer"`, "lock", "default/report-writer"},
		{"hclog", `2021-06-24T16:03:25.050+1200 [WARN]  core: leadership lost: addr=10.0.0.12`, "addr", "10.0.0.12"},
		{"hclog", `2021-06-24T16:03:25.050+1200 [WARN]  core: leadership lost: addr=10.0.0.12`, "module", "core"},
		{"zookeeper", `2026-11-03 02:14:31,877 [myid:1] - INFO  [SessionTracker:o.a.z.s.ZooKeeperServer@643] - Expiring session 0x10000392c530000, timeout of 10000ms exceeded`, "caller", "o.a.z.s.ZooKeeperServer@643"},
		{"log4j", `2026-11-03 02:14:31,877 [main] INFO  com.acme.Job - Started`, "logger", "com.acme.Job"},
		{"jvm", `[2026-11-03T02:14:36.806+0000][17.706s][info][gc] GC(212) Pause Full (G1 Compaction Pause) 3911M->1022M(4096M) 15803.118ms`, "uptime", "17.706s"},
		{"syslog", `<134>1 2026-11-09T11:30:01.300000+00:00 store-1 fencestore 2281 WRITE [fence@32473 req="w1-a" token="12"] write applied`, "fence@32473.req", "w1-a"},
		{"syslog", `<134>1 2026-11-09T11:30:01.300000+00:00 store-1 fencestore 2281 WRITE [fence@32473 req="w1-a" token="12"] write applied`, "msg", "write applied"},
		{"syslog3164", `<30>Nov  8 09:20:18 store-1 fencestore[2281]: write applied`, "procid", "2281"},
		{"heroku", `2026-11-09T11:30:00.002000+00:00 app[worker.1]: time=x msg="lease granted"`, "dyno", "worker.1"},
		{"golog", `2026/11/07 10:00:16 INFO write sent token=42`, "msg", "write sent"},
		{"postgres", `2026-12-01 18:14:21.436 UTC [5421] ERROR:  stale fencing token 1183442 < 1183517`, "pid", "5421"},
		{"nginx", `10.0.4.21 - - [03/Nov/2026:02:14:36 +0000] "PUT /reports/nightly.csv HTTP/1.1" 200 0 "-" "curl/8.5.0"`, "request_uri", "/reports/nightly.csv"},
	}
	for _, tt := range tests {
		rec, err := parsePreset(Format(tt.format), tt.line)
		if err != nil {
			t.Errorf("%s: %v", tt.format, err)
			continue
		}
		lr := &lineRules{im: New(&Mapping{}, Options{}), f: &fileState{}, format: Format(tt.format), top: &Keys{}}
		lr.restFields(rec)
		if got, _ := rec.get(tt.field); got != tt.want {
			t.Errorf("%s: %s = %q, want %q", tt.format, tt.field, got, tt.want)
		}
	}
}

// TestDetectFormats detects each file's format from a sample of its
// lines: a JVM banner does not make a JSON file CSV.
func TestDetectFormats(t *testing.T) {
	for want, text := range map[Format]string{
		Klog:      "I1105 07:41:00.000000 1 main.go:1] \"a\"\nI1105 07:41:01.000000 1 main.go:1] \"b\"\n",
		Zookeeper: "2026-11-03 02:14:31,877 [myid:1] - INFO  [main:o.a.z.Q@1] - a\n2026-11-03 02:14:32,877 [myid:1] - INFO  [main:o.a.z.Q@1] - b\n",
		JSONL:     "OpenJDK 64-Bit Server VM warning: x\n{\"a\":1}\n{\"a\":2}\n",
		Journald:  "{\"__REALTIME_TIMESTAMP\":\"1762331260000000\",\"MESSAGE\":\"x\"}\n",
		Postgres:  "2026-12-01 18:14:21.436 UTC [5421] ERROR:  x\n\tmore\n2026-12-01 18:14:21.436 UTC [5421] STATEMENT:  y\n",
		Logfmt:    "a=1 b=2\na=3 b=4\n",
		CSV:       "a,b\n1,2\n",
	} {
		var sample [][]byte
		for _, l := range strings.Split(strings.TrimSpace(text), "\n") {
			sample = append(sample, []byte(l))
		}
		if got := detectFormat(sample, nil); got != want {
			t.Errorf("detect(%q) = %s, want %s", text, got, want)
		}
	}
}

// TestJournaldMicroseconds: journald's __REALTIME_TIMESTAMP is µs.
func TestJournaldMicroseconds(t *testing.T) {
	j := `{"__REALTIME_TIMESTAMP":"1762331260123456","_HOSTNAME":"worker-2","MESSAGE":"level=INFO msg=\"lease granted\" token=42"}` + "\n"
	m := `{"token": "token", "kinds": [{"is": "lease granted", "kind": "acquire"}]}`
	res, err := run(t, m, Options{}, file{"worker-2.journal.json", j})
	if err != nil {
		t.Fatal(err)
	}
	e := res.Scenario.Events[0]
	if e.Actor != "worker-2" || e.Token == nil || *e.Token != 42 || res.Files[0].Format != Journald {
		t.Errorf("event = %+v, file %+v", e, res.Files[0])
	}
	if got, _ := ParseTime("1762331260123456"); got.Year() != 2025 {
		t.Errorf("µs time read as year %d", got.Year())
	}
}

// TestRotationAndHosts reads a rotation set oldest first as one host.
func TestRotationAndHosts(t *testing.T) {
	m := `{"time": "t", "token": "tok", "kinds": [{"is": "grant", "kind": "acquire"}, {"is": "expired", "kind": "expire"}]}`
	res, err := run(t, m, Options{},
		file{"x.log", "t=2026-01-01T00:00:03Z msg=grant tok=3\n"},
		file{"x.log.1", "t=2026-01-01T00:00:02Z msg=expired\n"},
		file{"x.log.2", "t=2026-01-01T00:00:01Z msg=grant tok=2\n"})
	if err != nil {
		t.Fatal(err)
	}
	want := "x acquire, x expire, x acquire"
	if got := timeline(res); got != want || len(gapKinds(res)) != 0 {
		t.Errorf("timeline = %s, gaps %v; want %s and none", got, res.Gaps, want)
	}
	if res.Scenario.Events[0].Note != "x.log.2:1" {
		t.Errorf("first event %q, want x.log.2:1", res.Scenario.Events[0].Note)
	}
}

// TestLeaseRules: a repeated grant, a re-acquire, a token taken from a
// later write, and an unknown one.
func TestLeaseRules(t *testing.T) {
	text := strings.Join([]string{
		"t=2026-01-01T00:00:01Z who=A msg=grant",
		"t=2026-01-01T00:00:01.5Z who=A msg=grant tok=41",
		"t=2026-01-01T00:00:02Z who=A msg=sent req=r1 tok=41 val=x",
		"t=2026-01-01T00:00:03Z who=A msg=grant tok=45",
		"t=2026-01-01T00:00:04Z who=A msg=sent req=r2 tok=45 val=y",
		"t=2026-01-01T00:00:05Z who=B msg=grant",
		"t=2026-01-01T00:00:06Z who=B msg=sent req=r3 tok=46 val=z",
	}, "\n")
	res, err := run(t, skewMap, Options{}, file{"l.log", text})
	if err != nil {
		t.Fatal(err)
	}
	want := "A acquire, A send, A release, A acquire, A send, A expire, B acquire, B send"
	if got := timeline(res); got != want {
		t.Errorf("timeline = %s\nwant       %s", got, want)
	}
	k := gapKinds(res)
	if k["repeated-grant"] != 1 || k["reacquire"] != 1 || k["inferred-expiry"] != 1 || k["acquire-token-inferred"] != 1 {
		t.Errorf("gaps = %v", k)
	}
	if tok := res.Scenario.Events[6].Token; tok == nil || *tok != 46 {
		t.Errorf("B's acquire token = %v, want 46 from its send", tok)
	}
	if n := len(res.Inferred); n != 2 {
		t.Errorf("inferred = %+v, want the release and the expiry", res.Inferred)
	}
}

// TestSuggest proposes a format, fields and the message texts of each file.
func TestSuggest(t *testing.T) {
	s := NewSurvey()
	s.Add("zk-1.log", strings.NewReader("2026-11-03 02:14:31,877 [myid:1] - INFO  [SessionTracker:o.a.z.s.ZooKeeperServer@643] - Expiring session 0x10000392c530000, timeout of 10000ms exceeded\n2026-11-03 02:14:32,877 [myid:1] - INFO  [SessionTracker:o.a.z.s.ZooKeeperServer@643] - Expiring session 0x10000392c530001, timeout of 10000ms exceeded\n"), "")
	m := s.SuggestMapping()
	b, _ := json.Marshal(m)
	for _, want := range []string{`"match":"zk-1.log"`, `"format":"zookeeper"`, `"match":"^Expiring session 0x[0-9a-f]+, timeout of [0-9]+ms exceeded$"`, `"count":2`, `"kind":"ignore"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("suggested mapping %s lacks %s", b, want)
		}
	}
	if _, err := ReadMapping(strings.NewReader(string(m.JSON()))); err != nil {
		t.Errorf("the suggested mapping does not read: %v", err)
	}
}

// TestBadInputV2: an empty file, a pattern that does not compile, a
// section without a match, an unknown format.
func TestBadInputV2(t *testing.T) {
	for _, tt := range []struct{ m, want string }{
		{`{"kinds": [{"match": "(", "kind": "acquire"}]}`, "kinds[0]: match"},
		{`{"files": [{"match": "a*", "pattern": "(?<time>", "kinds": [{"is": "x", "kind": "acquire"}]}]}`, "files[0]: pattern"},
		{`{"files": [{"kinds": [{"is": "x", "kind": "acquire"}]}]}`, "files[0]: match is required"},
		{`{"format": "yaml", "kinds": [{"is": "x", "kind": "acquire"}]}`, `format "yaml"`},
		{`{"kinds": [{"is": "x", "kind": "write", "match": "y"}]}`, "one of is and match"},
		{`{"kinds": [{"match": "(?<duration>[0-9]+)", "kind": "write"}]}`, "pause rule only"},
	} {
		if _, err := ReadMapping(strings.NewReader(tt.m)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ReadMapping(%s) = %v, want %q", tt.m, err, tt.want)
		}
	}
	_, err := run(t, skewMap, Options{}, file{"empty.log", ""})
	wantError(t, "an empty file", err, "empty.log: the file is empty")
}

// TestManyLinesWithRules: lines no rule can match are not parsed.
func TestManyLinesWithRules(t *testing.T) {
	var b strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&b, `{"ts":"2026-01-01T00:00:%02d.%03dZ","msg":"heartbeat","n":%d}`+"\n", i%60, i%1000, i)
	}
	b.WriteString(`{"ts":"2026-01-01T00:01:00Z","msg":"lease granted","holder":"A","token":3}` + "\n")
	m := `{"actor": "holder", "token": "token", "kinds": [{"match": "^lease (?:granted)$", "kind": "acquire"}]}`
	res, err := run(t, m, Options{}, file{"big.log", b.String()})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Scenario.Events) != 1 || res.Files[0].Parsed > fullLines+1 {
		t.Errorf("events %d, parsed %d: want 1 and only the first %d lines and the event parsed", len(res.Scenario.Events), res.Files[0].Parsed, fullLines)
	}
}

// TestNotALog: a text file no format reads is named, and the per-file
// counts say where the lines went.
func TestNotALog(t *testing.T) {
	readme := "fencelab\n\nA visual lab for leases and fencing tokens.\nIt replays an order of events.\n"
	_, err := run(t, skewMap, Options{}, file{"README.txt", readme})
	wantError(t, "a text file", err, "README.txt is not a log the import reads")
	nginx := `10.0.4.21 - - [03/Nov/2026:02:14:20 +0000] "GET /healthz HTTP/1.1" 200 2 "-" "curl/8.5.0"` + "\n"
	// A section's time comes before the format's own: here it names a
	// field nginx's combined log does not have.
	m := `{"files": [{"match": "nginx*", "time": "msec", "request": {"value": "r1"}, "kinds": [{"field": "request_method", "is": "GET", "kind": "deliver"}]}]}`
	_, err = run(t, m, Options{}, file{"nginx-access.log", nginx})
	wantError(t, "nginx without the named time", err,
		`nginx-access.log: 1 lines read, 1 parsed, 1 matched a kind rule, 1 left out: no time (mapping's time "msec"; fields seen: `,
		"fields seen: ")
}

// TestDetectLog4jNotHclog: a log4j thread in brackets is no hclog level.
func TestDetectLog4jNotHclog(t *testing.T) {
	sample := [][]byte{[]byte("2026-11-03 02:14:31,877 [main] INFO  com.acme.Job - Started"), []byte("2026-11-03 02:14:32,001 [worker-3] WARN  com.acme.Job - Slow")}
	if got := detectFormat(sample, nil); got != Log4j {
		t.Errorf("detect = %s, want log4j", got)
	}
}

// TestReadMappingCutShort: an empty or cut mapping file says so.
func TestReadMappingCutShort(t *testing.T) {
	for in, want := range map[string]string{"": "the file is empty", "  \n": "the file is empty", `{"kinds": [`: "cut short", `{"kinds": [{"is": "x", "kind": "acquire"}]} {}`: "more than one JSON value"} {
		if _, err := ReadMapping(strings.NewReader(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadMapping(%q) = %v, want %q", in, err, want)
		}
	}
}
