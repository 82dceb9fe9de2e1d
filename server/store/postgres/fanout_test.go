package postgres

import (
	"io"
	"log/slog"
	"testing"
	"time"

	"fencelab/server/store/storetest"
)

// TestFanout: a bell rung through one server rings on another, only for
// its room; after the listening connection was cut and is back, every
// room with listeners rings once, since notifications meanwhile are lost.
func TestFanout(t *testing.T) {
	dsn, hostPort := storetest.FreshSchema(t, storetest.PostgresURL(t))
	proxy := storetest.NewProxy(t, hostPort)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	open := func(dsn string) *Fanout {
		db, err := Open(t.Context(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		f := NewFanout(db, log)
		t.Cleanup(func() { f.Close(); db.Close() })
		return f
	}
	a, b := open(dsn), open(storetest.ThroughProxy(t, dsn, proxy))

	bell, stop := b.Listen("room-1")
	defer stop()
	other, stopOther := b.Listen("room-2")
	defer stopOther()
	if err := a.Notify(t.Context(), "room-1"); err != nil {
		t.Fatalf("Notify: %v", err)
	}
	rings(t, bell, "room-1 after Notify on the other server")
	quiet(t, other, "room-2 after a Notify for room-1")

	proxy.Cut()
	proxy.Resume()
	rings(t, bell, "room-1 after the listening connection came back")
	rings(t, other, "room-2 after the listening connection came back")
	if err := a.Notify(t.Context(), "room-2"); err != nil {
		t.Fatalf("Notify after reconnecting: %v", err)
	}
	rings(t, other, "room-2 after Notify, reconnected")
}

func rings(t *testing.T, bell <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-bell:
	case <-time.After(10 * time.Second):
		t.Fatalf("bell of %s: no ring within 10 s", what)
	}
}

func quiet(t *testing.T, bell <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-bell:
		t.Errorf("bell of %s rang, want none", what)
	case <-time.After(200 * time.Millisecond):
	}
}
