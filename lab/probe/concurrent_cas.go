package probe

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"
)

// casWorker loops under cas: take a token (cas ignores it, but a real
// worker holds a lease all the same), read the resource, and write a
// value computed from what it read, on the condition that the resource is
// still at the version read; sometimes it writes on an older read, late
// on purpose, which a correct receiver rejects when anything landed since.
func (r *run) casWorker(ctx context.Context, id int) []Record {
	rng := rand.New(rand.NewPCG(uint64(id), uint64(r.start.UnixNano())))
	out := make([]Record, 0, 1024)
	var old *int64
	n := 0
	for !r.stop.Load() && ctx.Err() == nil {
		t := r.next.Add(1) - 1
		floor, sent := r.readMax.Load(), time.Since(r.start)
		v, err := r.readVersion()
		if err != nil {
			r.fail(err)
			break
		}
		r.readAt(floor, sent, v)
		if old != nil && rng.IntN(3) == 0 {
			v = *old // a late write on an older read
		}
		n++
		out = r.casWrite(out, id, t, v, fmt.Sprintf("w%d-%d from version %d", id, n, v))
		old = &v
	}
	return out
}

// readVersion reads the resource's version: 0 for a resource that holds
// nothing and says no version, a contract error when it holds a value
// without one.
func (r *run) readVersion() (int64, error) {
	h, err := r.p.Client.Resource(context.Background(), r.opt.Resource)
	switch {
	case err != nil:
		return 0, err
	case h.Version != nil:
		return *h.Version, nil
	case h.Value == nil:
		return 0, nil
	}
	return 0, &ContractError{"GET /resources/" + r.opt.Resource, "gave no version; a receiver that claims cas " +
		"must, so that writers can state the version they read"}
}

// casWrite sends one rmw write that expects version v.
func (r *run) casWrite(out []Record, worker int, token, v int64, value string) []Record {
	floor := r.acked.Load() // before the tick: see Record
	rec := Record{Seq: int(r.seq.Add(1)), Worker: worker, Token: token, Value: value, Expect: &v}
	scope := leaseScope
	w := WriteRequest{Resource: r.opt.Resource, Value: value, Token: &token, Scope: &scope,
		ID: fmt.Sprintf("#%d", rec.Seq), ExpectVersion: &v, Writer: fmt.Sprintf("w%d", worker)}
	r.send(&rec, w)
	if rec.Outcome == "applied" {
		if _, twice := r.versions.LoadOrStore(v, true); twice || v <= floor {
			r.noticed()
		}
		r.raise(v)
	}
	return append(out, rec)
}

// readAt notes a read of version v sent at sent, when the highest version
// a read had answered was floor: a version never goes down, so a read
// answering less than one answered before it was sent is a violation.
func (r *run) readAt(floor int64, sent time.Duration, v int64) {
	if v < floor {
		r.readBack.CompareAndSwap(nil, &Violation{Kind: "version-went-back", Words: fmt.Sprintf(
			"a read sent at %s answered version %d at %s, but a read answered before it was sent had given version %d: a version must never go down",
			ms(sent), v, ms(time.Since(r.start)), floor)})
		r.noticed()
	}
	for {
		cur := r.readMax.Load()
		if v <= cur || r.readMax.CompareAndSwap(cur, v) {
			return
		}
	}
}
