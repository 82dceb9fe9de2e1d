package logs

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"fencelab/lab"
)

// wantError runs an import that must fail and checks every want appears
// in its reasons.
func wantError(t *testing.T, what string, err error, wants ...string) {
	t.Helper()
	var ie *Error
	if !errors.As(err, &ie) {
		t.Fatalf("%s: error %v, want an *Error", what, err)
	}
	for _, w := range wants {
		if !strings.Contains(ie.Error(), w) {
			t.Errorf("%s: error %q, want it to mention %q", what, ie.Error(), w)
		}
	}
}

func TestBinaryFile(t *testing.T) {
	bin := "\x7fELF\x02\x01\x01\x00\x00\x00garbage\n\x00\x01\x02\n"
	_, err := run(t, simpleMap, Options{}, file{"core.bin", bin})
	wantError(t, "import of a binary file", err, "core.bin:1: binary data", "no event")
}

func TestLongLine(t *testing.T) {
	t.Parallel()
	// Ten times MaxLine; under -short three times, still a line the
	// reader must skip across several full buffers.
	size := 10 << 20
	if testing.Short() {
		size = 3 * MaxLine
	}
	var text strings.Builder // built in place: the concatenations copied it twice more
	text.Grow(size + 100)
	text.WriteString("t=1 who=A msg=grant note=")
	for chunk := strings.Repeat("x", 1<<16); text.Len() < size; {
		text.WriteString(chunk)
	}
	text.WriteString("\nt=2 who=A msg=write val=v out=ok\n")
	res, err := run(t, simpleMap, Options{}, file{"big.log", text.String()})
	if err != nil {
		t.Fatalf("import with a %d MiB line: %v", size>>20, err)
	}
	if res.ProblemCount != 1 || res.Problems[0].Source != "big.log:1" || !strings.Contains(res.Problems[0].Message, "longer than") {
		t.Errorf("problems = %v, want big.log:1 too long", res.Problems)
	}
	if len(res.Scenario.Events) != 1 || res.Scenario.Events[0].Note != "big.log:2" {
		t.Errorf("events = %v, want the write of line 2", res.Scenario.Events)
	}
}

func TestMissingFields(t *testing.T) {
	m := `{"time": "when", "actor": "who", "token": "lease.gen", "kind": {"field": "event", "values": {"grant": "acquire"}}}`
	_, err := run(t, m, Options{}, file{"a.log", "t=1 who=A msg=grant\n"})
	wantError(t, "import with a mapping naming absent fields", err,
		`field "event", which no line has (fields seen: msg, t, who)`, `field "when"`, `field "lease.gen"`)
	// With the kind field present, an absent other field is only a problem.
	m = `{"actor": "who", "token": "lease.gen", "kind": {"field": "msg", "values": {"grant": "acquire"}}}`
	res, err := run(t, m, Options{}, file{"a.log", "t=1 who=A msg=grant\n"})
	if err != nil || len(res.Problems) != 1 || !strings.Contains(res.Problems[0].Message, `"lease.gen"`) {
		t.Errorf("import with token field absent = %v, %v; want a problem naming lease.gen", res, err)
	}
}

// TestFieldTheFormatReads: a field the mapping names that the lines have,
// though the format read it first (journald's time), is not said to be
// on no line.
func TestFieldTheFormatReads(t *testing.T) {
	t.Parallel()
	m := `{"time": ["time", "__REALTIME_TIMESTAMP"], "actor": "who", "token": "tok",
 "kind": {"field": "msg", "values": {"grant": "acquire"}}}`
	res, err := run(t, m, Options{}, file{"w.journal.json",
		`{"__REALTIME_TIMESTAMP": "1793864460000000", "_HOSTNAME": "w", "MESSAGE": "msg=grant who=A tok=41"}` + "\n"})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Problems {
		if strings.Contains(p.Message, `"__REALTIME_TIMESTAMP", which no line has`) {
			t.Errorf("problem %q: every line has the field", p.Message)
		}
	}
	if len(res.Scenario.Events) != 1 {
		t.Errorf("events %v, want the grant", res.Scenario.Events)
	}
}

func TestMixedTimes(t *testing.T) {
	text := strings.Join([]string{
		`t=2026-11-30T03:00:00Z who=A msg=grant`,
		`t=1796007601 who=A msg=pause`,     // Unix seconds, 03:00:01
		`t=1796007602500 who=A msg=resume`, // Unix ms, 03:00:02.5
		`t="30/11/2026 03:00:03" who=A msg=write val=v`,
		`t="Nov 30 03:00:04" who=A msg=write val=w`,
	}, "\n")
	res, err := run(t, simpleMap, Options{}, file{"mixed.log", text})
	if err != nil {
		t.Fatalf("import with mixed times: %v", err)
	}
	// Version 2 reads RFC 3164's "Nov 30 03:00:04", in the year of the
	// import's earliest dated line.
	if got := len(res.Scenario.Events); got != 4 {
		t.Errorf("events = %d, want the 4 with readable times", got)
	}
	if n := res.Scenario.Events[3].Note; n != "mixed.log:5" {
		t.Errorf("event 4 = %q, want the write of mixed.log:5", n)
	}
	if p := res.Problems[0]; p.Source != "mixed.log:4" || !strings.Contains(p.Message, "is not a time the import reads") {
		t.Errorf("problem 0 = %v, want mixed.log:4: not a time the import reads", p)
	}
	_, err = run(t, simpleMap, Options{Strict: true}, file{"mixed.log", text})
	wantError(t, "import --strict with mixed times", err, "mixed.log:4")
}

func TestEverythingWrite(t *testing.T) {
	m := `{"actor": "who", "kind": {"field": "msg", "values": {"grant": "write", "sent": "write", "recv": "write", "other": "write"}}}`
	text := "who=A msg=grant\nwho=B msg=sent\nmsg=recv\nwho=C msg=other\n"
	res, err := run(t, m, Options{}, file{"w.log", text})
	if err != nil {
		t.Fatalf("import with everything a write: %v", err)
	}
	// Version 2: the line without an actor is its host's (actor-assumed).
	if len(res.Scenario.Events) != 4 || res.ProblemCount != 0 || res.Scenario.Events[2].Actor != "w" {
		t.Errorf("events %v problems %v, want 4 writes, w.log:3 by its host w", res.Scenario.Events, res.Problems)
	}
	kinds := map[string]int{}
	for _, g := range res.Gaps {
		kinds[g.Kind]++
	}
	if kinds["token-assumed"] != 4 || kinds["value-assumed"] != 4 || kinds["no-acquire"] != 4 || kinds["actor-assumed"] != 1 {
		t.Errorf("gaps = %v, want a token, a value and an acquire missing for each of 4 writes, and one actor assumed", kinds)
	}
}

func TestTooManyEvents(t *testing.T) {
	var b strings.Builder
	for i := range 600 {
		fmt.Fprintf(&b, "t=%d who=A msg=pause\n", 1000+i)
	}
	_, err := run(t, simpleMap, Options{}, file{"many.log", b.String()})
	wantError(t, "import of 600 events", err, "600 events, the model allows 500", "--since and --until")
}

func TestSeveralFilesNeedTime(t *testing.T) {
	m := `{"actor": "who", "kind": {"field": "msg", "values": {"grant": "acquire"}}}`
	_, err := run(t, m, Options{}, file{"a.log", "who=A msg=grant\n"}, file{"b.log", "who=B msg=grant\n"})
	wantError(t, "import of two files without time", err, "several files need a time field")
}

func TestDeliverMatching(t *testing.T) {
	worker := "t=10 who=A msg=grant tok=5\nt=20 who=A msg=sent req=r1 tok=5 val=x\n"
	store := "t=19 msg=recv req=r1 tok=5 out=ok\nt=30 msg=recv req=r9 tok=5 out=no\n"
	res, err := run(t, simpleMap, Options{}, file{"w.log", worker}, file{"s.log", store})
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	var kinds []lab.Kind
	for _, e := range res.Scenario.Events {
		kinds = append(kinds, e.Kind)
	}
	if want := []lab.Kind{lab.Acquire, lab.Send, lab.Deliver}; fmt.Sprint(kinds) != fmt.Sprint(want) {
		t.Errorf("events = %v, want %v (the early deliver after its send, the orphan left out)", kinds, want)
	}
	var got []string
	for _, g := range res.Gaps {
		got = append(got, g.Kind+" "+strings.Join(g.Sources, ","))
	}
	// Version 2: the worker's clock is moved earlier instead (clock-offset).
	want := "[deliver-without-send s.log:2 clock-offset w.log:2,s.log:1]"
	if fmt.Sprint(got) != want {
		t.Errorf("gaps = %v, want %s", got, want)
	}
}

func TestRenames(t *testing.T) {
	text := "t=1 who=worker-with-a-very-long-pod-name-7f3a9 msg=grant\nt=2 who=\"w 2\" msg=grant\nt=3 who=B msg=grant\n"
	res, err := run(t, simpleMap, Options{}, file{"r.log", text})
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	var actors []string
	for _, e := range res.Scenario.Events {
		actors = append(actors, e.Actor)
	}
	// Each acquire while another holds the scope follows an inferred expiry.
	if fmt.Sprint(actors) != "[A A C C B]" {
		t.Errorf("actors = %v, want [A A C C B]: short names in order, skipping B which the logs use", actors)
	}
	if len(res.Legend) != 2 || res.Legend[1].Original != "w 2" || !strings.Contains(res.Scenario.Events[2].Note, `(actor "w 2")`) {
		t.Errorf("legend %v, note %q: want the originals kept", res.Legend, res.Scenario.Events[1].Note)
	}
}

func TestOnlyOrphanDelivers(t *testing.T) {
	_, err := run(t, simpleMap, Options{}, file{"s.log", "t=1 msg=recv req=r1 out=ok\n"})
	wantError(t, "import of a deliver alone", err, "no event left", "s.log:1")
}
