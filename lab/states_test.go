package lab

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestStatesPausedWorker follows A's lease through the paused-worker lesson.
func TestStatesPausedWorker(t *testing.T) {
	t.Parallel()
	sts := States(builtin(t, "paused-worker"))
	if len(sts) != 8 {
		t.Fatalf("States gave %d states, want one per event (8)", len(sts))
	}
	job := func(i int) LeaseState { return sts[i-1].Leases[0] }
	a := func(i int) WorkerState { return sts[i-1].Workers[0] }
	want := []struct {
		step  int
		lease LeaseState
		a     WorkerState
	}{
		{1, LeaseState{Scope: "job", Holder: "A", Token: 41, Valid: true, Held: []ActorLease{{"A", 41}}}, WorkerState{Actor: "A", Scope: "job", Token: 41}},
		{3, LeaseState{Scope: "job", Holder: "A", Token: 41, Valid: true, Held: []ActorLease{{"A", 41}}}, WorkerState{Actor: "A", Paused: true, Scope: "job", Token: 41}},
		{4, LeaseState{Scope: "job", Holder: "A", Token: 41}, WorkerState{Actor: "A", Paused: true, Scope: "job", Token: 41, Unaware: []HeldLease{{"job", 41}}}},
		{5, LeaseState{Scope: "job", Holder: "B", Token: 42, Valid: true, Held: []ActorLease{{"B", 42}}}, WorkerState{Actor: "A", Paused: true, Scope: "job", Token: 41, Unaware: []HeldLease{{"job", 41}}}},
		{8, LeaseState{Scope: "job", Holder: "B", Token: 42, Valid: true, Held: []ActorLease{{"B", 42}}}, WorkerState{Actor: "A", Scope: "job", Token: 41, Unaware: []HeldLease{{"job", 41}}}},
	}
	for _, w := range want {
		if got := job(w.step); !reflect.DeepEqual(got, w.lease) {
			t.Errorf("after step %d the lease is %+v, want %+v", w.step, got, w.lease)
		}
		if got := a(w.step); !reflect.DeepEqual(got, w.a) {
			t.Errorf("after step %d A is %+v, want %+v", w.step, got, w.a)
		}
	}
}

// TestStatesAgreeWithReplay checks States against what Replay says on
// random scenarios: a check says "is valid" exactly when the checker
// validly holds its latest grant, an expired worker stays unaware until a
// check or a refused renewal tells it, and requests are in flight from
// their send to their delivery.
func TestStatesAgreeWithReplay(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(10, 2))
	for n := range samples(300) {
		s, err := reparse(generate(rng, genOptions{actors: 3, scopes: 2, resources: 2, events: 30, tokens: true, memory: true}))
		if err != nil {
			t.Fatal(err)
		}
		tr, sts := Replay(s), States(s)
		if len(sts) != len(tr.Steps) {
			t.Fatalf("scenario %d: %d states for %d steps", n, len(sts), len(tr.Steps))
		}
		for i, st := range tr.Steps {
			e, d := st.Event, st.Outcomes[0].Decision
			w := workerIn(sts[i], e.Actor)
			for _, l := range sts[i].Leases { // no split grants here: at most one valid lease, the latest grant's
				if latest := []ActorLease{{l.Holder, l.Token}}; l.Valid != reflect.DeepEqual(l.Held, latest) || !l.Valid && len(l.Held) > 0 {
					t.Fatalf("scenario %d step %d: lease %+v holds %v", n, i+1, l, l.Held)
				}
			}
			switch {
			case e.Kind == Check && d != Skipped:
				valid := strings.HasSuffix(st.Outcomes[0].Reason, " is valid")
				if got := holdsLatest(sts[i], w); got != valid {
					t.Fatalf("scenario %d step %d: %s, but the state says valid = %v", n, i+1, st.Outcomes[0].Reason, got)
				}
				if !valid && len(w.Unaware) > 0 {
					t.Fatalf("scenario %d step %d: %s learned its lease ended, still unaware of %v", n, i+1, e.Actor, w.Unaware)
				}
			case e.Kind == Expire && d != Skipped:
				if l := leaseIn(sts[i], e.Scope); l.Valid || len(w.Unaware) == 0 || w.Unaware[len(w.Unaware)-1] != (HeldLease{e.Scope, l.Token}) {
					t.Fatalf("scenario %d step %d: after an expiry %+v, %+v", n, i+1, l, w)
				}
			case e.Kind == Send && d != Skipped:
				if !contains(sts[i].InFlight, e.ID) {
					t.Fatalf("scenario %d step %d: %s is not in flight after its send: %v", n, i+1, e.ID, sts[i].InFlight)
				}
			case e.Kind == Deliver && d != Skipped:
				if contains(sts[i].InFlight, e.Request) {
					t.Fatalf("scenario %d step %d: %s is in flight after its delivery", n, i+1, e.Request)
				}
			}
		}
	}
}

// TestStatesModel3 follows the leases of the split-brain and
// lease-service-forgets lessons: a split grant leaves two valid leases, the
// latest-granted last, and a restart of a memory scope forgets its leases,
// leaving their workers unaware.
func TestStatesModel3(t *testing.T) {
	tests := []struct {
		scenario string
		step     int
		lease    LeaseState
		unawareA []HeldLease
	}{
		{"split-brain", 1, LeaseState{Scope: "job", Holder: "A", Token: 41, Valid: true, Held: []ActorLease{{"A", 41}}}, nil},
		{"split-brain", 3, LeaseState{Scope: "job", Holder: "B", Token: 42, Valid: true, Held: []ActorLease{{"A", 41}, {"B", 42}}}, nil},
		{"split-brain", 6, LeaseState{Scope: "job", Holder: "B", Token: 42, Valid: true, Held: []ActorLease{{"A", 41}, {"B", 42}}}, nil},
		{"lease-service-forgets", 4, LeaseState{Scope: "job", Holder: "A", Token: 41, Valid: true, Held: []ActorLease{{"A", 41}}}, nil},
		{"lease-service-forgets", 5, LeaseState{Scope: "job", Holder: "A", Token: 41, Forgotten: []ActorLease{{"A", 41}}}, []HeldLease{{"job", 41}}},
		{"lease-service-forgets", 6, LeaseState{Scope: "job", Holder: "B", Token: 41, Valid: true, Held: []ActorLease{{"B", 41}}}, []HeldLease{{"job", 41}}},
	}
	for _, tt := range tests {
		sts := States(builtin(t, tt.scenario))
		st := sts[tt.step-1]
		if got := st.Leases[0]; !reflect.DeepEqual(got, tt.lease) {
			t.Errorf("States(%s) step %d lease = %+v, want %+v", tt.scenario, tt.step, got, tt.lease)
		}
		if got := workerIn(st, "A").Unaware; !reflect.DeepEqual(got, tt.unawareA) {
			t.Errorf("States(%s) step %d A unaware of %v, want %v", tt.scenario, tt.step, got, tt.unawareA)
		}
	}
}

func workerIn(st StepState, actor string) WorkerState {
	for _, w := range st.Workers {
		if w.Actor == actor {
			return w
		}
	}
	return WorkerState{}
}

func leaseIn(st StepState, scope string) LeaseState {
	for _, l := range st.Leases {
		if l.Scope == scope {
			return l
		}
	}
	return LeaseState{}
}

func holdsLatest(st StepState, w WorkerState) bool {
	l := leaseIn(st, w.Scope)
	return w.Scope != "" && l.Valid && l.Holder == w.Actor && l.Token == w.Token
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
