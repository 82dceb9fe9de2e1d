package lab

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// appendixRow is one row of a table of the spec's appendix: what the
// policies named decide at the named steps, the resource's final value,
// the violations (kind@step, in the order a trace lists them) and the
// worst class.
type appendixRow struct {
	policies []Policy
	steps    map[int]Decision
	final    string
	viol     string
	worst    Class
}

// fencedFamily is the fenced family without register, as the appendix
// names it.
var fencedFamily = []Policy{Fenced, FencedStrict, FencedIdempotent, FencedRacy}

// modelTwo is every policy of model 2.
var modelTwo = []Policy{Unfenced, ClientCheck, Fenced, FencedStrict, FencedIdempotent, FencedRegister, Authoritative, FencedRacy}

func but(ps []Policy, out ...Policy) []Policy {
	var keep []Policy
	for _, p := range ps {
		if !slices.Contains(out, p) {
			keep = append(keep, p)
		}
	}
	return keep
}

// loadAppendix parses a library file, with each replacement applied to
// its text first (a variant the appendix describes).
func loadAppendix(t *testing.T, name string, replace ...string) *Scenario {
	t.Helper()
	b, err := os.ReadFile("../scenarios/" + name + ".json")
	if err != nil {
		t.Fatal(err)
	}
	src := string(b)
	for i := 0; i+1 < len(replace); i += 2 {
		if !strings.Contains(src, replace[i]) {
			t.Fatalf("%s has no %q to replace", name, replace[i])
		}
		src = strings.Replace(src, replace[i], replace[i+1], 1)
	}
	s, err := Parse(strings.NewReader(src))
	if err != nil {
		t.Fatalf("Parse(%s): %v", name, err)
	}
	return s
}

func checkAppendix(t *testing.T, name, resource string, s *Scenario, rows []appendixRow) {
	t.Helper()
	tr := Replay(s)
	seen := map[Policy]bool{}
	for _, row := range rows {
		for _, p := range row.policies {
			seen[p] = true
			for step, want := range row.steps {
				if got := tr.Steps[step-1].Outcomes.Of(p); got.Decision != want {
					t.Errorf("Replay(%s) step %d under %s = %q (%s), want %q", name, step, p, got.Decision, got.Reason, want)
				}
			}
			sum := tr.Summary[p]
			if got := deref(sum.Final[resource]); got != row.final {
				t.Errorf("Replay(%s) final %s under %s = %q, want %q", name, resource, p, got, row.final)
			}
			var vs []string
			for _, v := range sum.Violations {
				vs = append(vs, fmt.Sprintf("%s@%d:%s", v.Kind, v.Step, v.Class))
			}
			if got := strings.Join(vs, " "); got != row.viol {
				t.Errorf("Replay(%s) violations under %s = [%s], want [%s]", name, p, got, row.viol)
			}
			if got := sum.Worst(); got != row.worst {
				t.Errorf("Replay(%s) worst under %s = %q, want %q", name, p, got, row.worst)
			}
		}
	}
	if len(seen) != numPolicies {
		t.Fatalf("the table of %s covers %d policies, want %d", name, len(seen), numPolicies)
	}
}

func TestAppendixStaleReadFreshToken(t *testing.T) {
	t.Parallel()
	s := loadAppendix(t, "stale-read-fresh-token")
	all := map[int]Decision{1: Granted, 4: Granted, 8: Granted, 6: Accepted}
	with := func(step int, d Decision) map[int]Decision {
		m := map[int]Decision{step: d}
		for k, v := range all {
			m[k] = v
		}
		return m
	}
	checkAppendix(t, "stale-read-fresh-token", "balance", s, []appendixRow{
		{modelTwo, with(9, Accepted), "balance 5", "lost-update@9:corrupting", Corrupting},
		{[]Policy{CAS}, with(9, Rejected), "balance 7", "", ""},
	})
	tr := Replay(s)
	if got := tr.Steps[8].Outcomes.Of(CAS).Reason; got != "rejected: B's write landed after A read balance (version 0, now 1)" {
		t.Errorf("Replay(stale-read-fresh-token) step 9 under cas reason = %q", got)
	}
	if got := tr.Steps[1].Outcomes.Of(Fenced).Versions["balance"]; got != 0 {
		t.Errorf("Replay(stale-read-fresh-token) step 2 version = %d, want 0", got)
	}
	if got := tr.Steps[8].Outcomes.Of(Fenced).Versions["balance"]; got != 2 {
		t.Errorf("Replay(stale-read-fresh-token) step 9 version under fenced = %d, want 2", got)
	}
}

func TestAppendixSplitBrain(t *testing.T) {
	t.Parallel()
	steps := func(d Decision) map[int]Decision {
		return map[int]Decision{2: Accepted, 3: Granted, 4: OK, 5: Accepted, 6: d}
	}
	s := loadAppendix(t, "split-brain")
	broken := "stale-overwrite@6:corrupting superseded-write@6:deposed unowned-write@6:deposed"
	checkAppendix(t, "split-brain", "result", s, []appendixRow{
		{[]Policy{Unfenced, ClientCheck, Authoritative, CAS}, steps(Accepted), "plan A2", broken, Corrupting},
		{append(fencedFamily, FencedRegister), steps(Rejected), "plan B1", "", ""},
	})
	tr := Replay(s)
	if got := tr.Steps[2].Outcomes.Of(Fenced).Reason; got != "B holds job with token 42; A's lease (41) is still valid: split brain" {
		t.Errorf("Replay(split-brain) step 3 reason = %q", got)
	}
	if !strings.Contains(tr.Steps[3].Outcomes.Of(Fenced).Reason, "is valid") {
		t.Errorf("Replay(split-brain) step 4 reason = %q, want the lease valid", tr.Steps[3].Outcomes.Of(Fenced).Reason)
	}
	// Two issuers granting the same token: everyone is deposed but
	// fenced-strict, which refuses B's write.
	two := loadAppendix(t, "split-brain", `"split": true,`, `"split": true, "token": 41,`)
	tr = Replay(two)
	for _, p := range policies {
		want := "unowned-write@6:deposed"
		if p == FencedStrict {
			want = "valid-write-rejected@5:refusing"
		}
		var vs []string
		for _, v := range tr.Summary[p].Violations {
			vs = append(vs, fmt.Sprintf("%s@%d:%s", v.Kind, v.Step, v.Class))
		}
		if got := strings.Join(vs, " "); !strings.Contains(got, want) || tr.Summary[p].Worst() != classOfWant(p) {
			t.Errorf("Replay(split-brain, token 41) under %s = [%s] worst %q, want %s", p, got, tr.Summary[p].Worst(), want)
		}
	}
}

func classOfWant(p Policy) Class {
	if p == FencedStrict {
		return Refusing
	}
	return Deposed
}

func TestAppendixLeaseServiceForgets(t *testing.T) {
	t.Parallel()
	s := loadAppendix(t, "lease-service-forgets")
	steps := func(d8, d9 Decision) map[int]Decision {
		return map[int]Decision{4: Accepted, 6: Granted, 8: d8, 9: d9}
	}
	checkAppendix(t, "lease-service-forgets", "balance", s, []appendixRow{
		{but(modelTwo, FencedStrict), steps(Accepted, Accepted), "balance 120", "unowned-write@9:deposed lost-update@9:corrupting", Corrupting},
		{[]Policy{FencedStrict}, steps(Rejected, Rejected), "balance 100", "valid-write-rejected@8:refusing", Refusing},
		{[]Policy{CAS}, steps(Accepted, Rejected), "balance 150", "", ""},
	})
	if tok := Replay(s).Steps[5].Token; tok == nil || *tok != 41 {
		t.Errorf("Replay(lease-service-forgets) step 6 token = %v, want 41", tok)
	}
	durable := loadAppendix(t, "lease-service-forgets", `, "remember": "memory"`, ``)
	tr := Replay(durable)
	for _, p := range policies {
		if d := tr.Steps[5].Outcomes.Of(p).Decision; d != Refused {
			t.Errorf("Replay(lease-service-forgets, durable) step 6 under %s = %q, want refused", p, d)
		}
	}
	for _, p := range []Policy{Fenced, FencedIdempotent, FencedRegister, FencedRacy, Authoritative, ClientCheck} {
		if vs := tr.Summary[p].Violations; len(vs) != 0 {
			t.Errorf("Replay(lease-service-forgets, durable) under %s = %v, want clean", p, vs)
		}
	}
	if vs := tr.Summary[FencedStrict].Violations; len(vs) != 1 || vs[0] != (Violation{ValidWriteRejected, 9, Refusing}) {
		t.Errorf("Replay(lease-service-forgets, durable) under fenced-strict = %v, want valid-write-rejected@9", vs)
	}
}

func TestAppendixKeysForgotten(t *testing.T) {
	t.Parallel()
	s := loadAppendix(t, "keys-forgotten")
	checkAppendix(t, "keys-forgotten", "ledger", s, []appendixRow{
		{but(policies[:], FencedStrict), map[int]Decision{6: Accepted}, "credit 10 to account 7", "duplicate-applied@6:corrupting", Corrupting},
		{[]Policy{FencedStrict}, map[int]Decision{6: Rejected}, "credit 10 to account 7", "valid-write-rejected@6:refusing", Refusing},
	})
	durable := Replay(loadAppendix(t, "keys-forgotten", `"keys": "memory"`, `"keys": "durable"`))
	if d := durable.Steps[5].Outcomes.Of(FencedIdempotent).Decision; d != Suppressed || len(durable.Summary[FencedIdempotent].Violations) != 0 {
		t.Errorf("Replay(keys-forgotten, durable keys) under fenced-idempotent = %q %v, want suppressed and clean", d, durable.Summary[FencedIdempotent].Violations)
	}
}

func TestAppendixTwoLeasesOneWorker(t *testing.T) {
	t.Parallel()
	s := loadAppendix(t, "two-leases-one-worker")
	steps := func(d8, d9 Decision) map[int]Decision {
		return map[int]Decision{3: Accepted, 4: Accepted, 7: Accepted, 8: d8, 9: d9}
	}
	checkAppendix(t, "two-leases-one-worker", "report", s, []appendixRow{
		{[]Policy{Unfenced, CAS}, steps(Accepted, Accepted), "invoices: 4 lines",
			"stale-overwrite@8:corrupting superseded-write@8:deposed unowned-write@8:deposed", Corrupting},
		{[]Policy{ClientCheck}, steps(Aborted, Accepted), "invoices: 4 lines", "", ""},
		{[]Policy{Fenced, FencedIdempotent, FencedRegister, FencedRacy, Authoritative}, steps(Rejected, Accepted), "invoices: 4 lines", "", ""},
		{[]Policy{FencedStrict}, steps(Rejected, Rejected), "orders: 14 lines", "valid-write-rejected@9:refusing", Refusing},
	})
	if got := Replay(s).Steps[7].Outcomes.Of(Fenced).Reason; got != "rejected: 41 < 42 already accepted for orders" {
		t.Errorf("Replay(two-leases-one-worker) step 8 under fenced reason = %q", got)
	}
	shared := Replay(loadAppendix(t, "two-leases-one-worker", `, "tokens": "per-scope"`, ``))
	for _, p := range append(fencedFamily, FencedRegister) {
		var rejected []int
		for _, v := range shared.Summary[p].Violations {
			if v.Kind == ValidWriteRejected {
				rejected = append(rejected, v.Step)
			}
		}
		if fmt.Sprint(rejected) != "[4 9]" {
			t.Errorf("Replay(two-leases-one-worker, shared tokens) valid-write-rejected under %s at %v, want [4 9]", p, rejected)
		}
	}
	if vs := shared.Summary[Authoritative].Violations; len(vs) != 0 {
		t.Errorf("Replay(two-leases-one-worker, shared tokens) under authoritative = %v, want clean", vs)
	}
}
