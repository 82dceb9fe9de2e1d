package logs

import (
	"context"
	"strings"
	"testing"
)

// FuzzImport feeds arbitrary text to an import with rules of every kind:
// whatever the lines, it answers a result or an *Error, and never panics.
func FuzzImport(f *testing.F) {
	for _, s := range []string{
		"t=2026-11-09T10:00:09.000Z who=A msg=grant tok=7\nt=2026-11-09T10:00:10.000Z msg=\"write applied\" req=r-7\n",
		`2026-11-09T11:30:00.002000+00:00 app[worker.1]: time=x msg="lease granted" token=7` + "\n" + `2026-11-09T11:30:01.060000+00:00 heroku[worker.1]: State changed from up to crashed`,
		"2026-12-01 17:14:21.436 UTC [5421] ERROR:  x\n2026-12-01 17:14:21.436 UTC [5421] STATEMENT:  req=r1\n\tmore\n",
		"[2026-11-03T02:14:36.806+0000][17.706s][info][gc] GC(212) Pause Full 15803.118ms\n",
		"I1105 07:41:00.000000 1 main.go:1] \"Started leading\" transitions=42\n",
	} {
		f.Add(s, s)
	}
	m := `{"time": "t", "actor": ["who", "dyno"], "token": ["tok", "token", "transitions"], "request": "req", "lease": "lease",
	 "kinds": [{"is": "grant", "kind": "acquire"}, {"is": "lease granted", "kind": "acquire"}, {"is": "Started leading", "kind": "acquire"},
	  {"match": "^write (?<observed>applied|rejected)$", "kind": "deliver"}, {"is": "sent", "kind": "send"},
	  {"match": "crashed", "kind": "crash"}, {"match": "Pause Full .* (?<duration>[0-9.]+ms)$", "kind": "pause"},
	  {"field": "statement", "match": "req=(?<request>\\S+)", "kind": "outcome", "observed": "rejected"},
	  {"match": "session (?<lease>\\S+)", "kind": "binding"}, {"is": "expired", "kind": "expire"}],
	 "observed": {"default": "applied"}}`
	mp, err := ReadMapping(strings.NewReader(m))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		im := New(mp, Options{Explore: len(a)%2 == 0, Skew: 1e8, Budget: 2000})
		im.Add("a.log", strings.NewReader(a))
		im.Add("b.log", strings.NewReader(b))
		res, err := im.Finish(context.Background())
		if err == nil && res.Scenario == nil {
			t.Fatal("no error and no scenario")
		}
	})
}
