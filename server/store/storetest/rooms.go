package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"fencelab/server/store"
)

// TestRooms is the contract of a store.Rooms, for adapters that keep
// live rooms: a code is unique among live rooms, also when two servers
// create rooms at once; a student answers once; a revealed question takes
// no more answers; the counts add up.
func TestRooms(t *testing.T, h Harness) {
	db := h.Fresh(t)
	a, b := rooms(t, db), rooms(t, db)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Second)
	if err := a.CreateRoom(ctx, sampleRoom("room-1", "ABCDEF", now)); err != nil {
		t.Fatalf("CreateRoom: %v", err)
	}
	if err := b.CreateRoom(ctx, sampleRoom("room-2", "ABCDEF", now)); !errors.Is(err, store.ErrCodeTaken) {
		t.Errorf("CreateRoom with a live room's code = %v, want ErrCodeTaken", err)
	}
	later := now.Add(2 * time.Hour)
	if err := b.CreateRoom(ctx, sampleRoom("room-3", "ABCDEF", later)); err != nil {
		t.Errorf("CreateRoom with an expired room's code = %v, want nil", err)
	}
	got, err := b.RoomByCode(ctx, "ABCDEF", now)
	if err != nil || got.ID != "room-1" || len(got.Policies) != 2 || got.Policies[1] != "fenced" ||
		!got.ExpiresAt.Equal(now.Add(time.Hour)) || got.Step != 1 {
		t.Errorf("RoomByCode(ABCDEF) = %+v, %v; want room-1 as stored", got, err)
	}
	if _, err := a.RoomByCode(ctx, "ZZZZZZ", now); !errors.Is(err, store.ErrNoRoom) {
		t.Errorf("RoomByCode(ZZZZZZ) = %v, want ErrNoRoom", err)
	}
	if _, err := a.Room(ctx, "no-such-room"); !errors.Is(err, store.ErrNoRoom) {
		t.Errorf("Room(no-such-room) = %v, want ErrNoRoom", err)
	}
	if err := a.MoveRoom(ctx, "no-such-room", 2, nil); !errors.Is(err, store.ErrNoRoom) {
		t.Errorf("MoveRoom(no-such-room) = %v, want ErrNoRoom", err)
	}
	testCodeRace(t, a, b, now)
	testAnswers(t, a, b, now)
	testTeacher(t, a, b, now)
}

func rooms(t *testing.T, db Database) store.Rooms {
	t.Helper()
	rs, ok := open(t, db).(store.Rooms)
	if !ok {
		t.Fatal("the store keeps no live rooms (not a store.Rooms)")
	}
	return rs
}

func sampleRoom(id, code string, now time.Time) store.Room {
	return store.Room{ID: id, Code: code, SecretHash: "h", Page: "/scenarios/paused-worker", Title: "t",
		Policies: []string{"unfenced", "fenced"}, Diagram: "fenced", Step: 1, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
}

// testCodeRace creates rooms with one code from two stores at once: one
// wins, the others are told the code is taken.
func testCodeRace(t *testing.T, a, b store.Rooms, now time.Time) {
	const n = 8
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			errs[i] = []store.Rooms{a, b}[i%2].CreateRoom(context.Background(), sampleRoom(fmt.Sprint("race-", i), "RACE42", now))
		})
	}
	wg.Wait()
	won := 0
	for i, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, store.ErrCodeTaken):
			t.Errorf("CreateRoom #%d of one code at once = %v, want nil or ErrCodeTaken", i, err)
		}
	}
	if won != 1 {
		t.Errorf("%d of %d rooms created at once with one code, want 1", won, n)
	}
}

func testAnswers(t *testing.T, a, b store.Rooms, now time.Time) {
	ctx := context.Background()
	q := &store.Question{Step: 8, Ask: "accepted or rejected?", Answer: "rejected", OpenedAt: now}
	if err := a.MoveRoom(ctx, "room-1", 8, q); err != nil {
		t.Fatalf("MoveRoom: %v", err)
	}
	err := b.Answer(ctx, "room-1", store.Answer{Step: 7, Student: "s", Guess: "accepted", AnsweredAt: now})
	if !errors.Is(err, store.ErrNoQuestion) {
		t.Errorf("Answer at a step without a question = %v, want ErrNoQuestion", err)
	}
	// Many students at once through two servers: every answer is counted.
	var wg sync.WaitGroup
	errs := make([]error, 50)
	for i := range 50 {
		wg.Go(func() {
			guess := []string{"accepted", "rejected"}[i%2]
			errs[i] = []store.Rooms{a, b}[i%2].Answer(ctx, "room-1",
				store.Answer{Step: 8, Student: fmt.Sprint("s", i), Name: "n", Guess: guess, AnsweredAt: now})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Answer #%d: %v", i, err)
		}
	}
	err = b.Answer(ctx, "room-1", store.Answer{Step: 8, Student: "s1", Guess: "rejected", AnsweredAt: now})
	if !errors.Is(err, store.ErrAnswered) {
		t.Errorf("a second Answer = %v, want ErrAnswered", err)
	}
	if err := a.Reveal(ctx, "room-1", 8, now); err != nil {
		t.Fatalf("Reveal: %v", err)
	}
	err = b.Answer(ctx, "room-1", store.Answer{Step: 8, Student: "late", Guess: "rejected", AnsweredAt: now})
	if !errors.Is(err, store.ErrNoQuestion) {
		t.Errorf("Answer after the reveal = %v, want ErrNoQuestion", err)
	}
	if err := a.Reveal(ctx, "room-1", 9, now); !errors.Is(err, store.ErrNoQuestion) {
		t.Errorf("Reveal of a step never asked = %v, want ErrNoQuestion", err)
	}
	qs, err := b.Questions(ctx, "room-1")
	if err != nil || len(qs) != 1 || qs[0].Accepted != 25 || qs[0].Rejected != 25 || !qs[0].Revealed ||
		qs[0].Answer != "rejected" || qs[0].Step != 8 || !qs[0].OpenedAt.Equal(now) {
		t.Errorf("Questions = %+v, %v; want one revealed question at step 8 with 25 and 25", qs, err)
	}
	mine, err := a.Answers(ctx, "room-1", "s3")
	if err != nil || len(mine) != 1 || mine[0].Guess != "rejected" || mine[0].Name != "n" || !mine[0].AnsweredAt.Equal(now) {
		t.Errorf("Answers(s3) = %+v, %v; want one rejected", mine, err)
	}
	if all, err := b.Answers(ctx, "room-1", ""); err != nil || len(all) != 50 {
		t.Errorf("Answers(all) = %d answers, %v; want 50", len(all), err)
	}
	if r, err := b.Room(ctx, "room-1"); err != nil || r.Step != 8 {
		t.Errorf("Room(room-1) step = %d, %v; want 8", r.Step, err)
	}
}

// testTeacher covers what a presenter changes while the room runs: its
// options, a hand-over spent once, and the end.
func testTeacher(t *testing.T, a, b store.Rooms, now time.Time) {
	ctx := context.Background()
	if err := a.CreateRoom(ctx, sampleRoom("room-t", "TEACH1", now)); err != nil {
		t.Fatalf("CreateRoom: %v", err)
	}
	if r, err := b.Room(ctx, "room-t"); err != nil || r.ShowNames || r.Countdown != 0 || r.HandoverHash != "" {
		t.Errorf("a new Room = %+v, %v; want names off, no countdown, no hand-over", r, err)
	}
	if err := a.SetRoomOptions(ctx, "room-t", store.RoomOptions{ShowNames: true, Countdown: 30}); err != nil {
		t.Fatalf("SetRoomOptions: %v", err)
	}
	if r, err := b.Room(ctx, "room-t"); err != nil || !r.ShowNames || r.Countdown != 30 {
		t.Errorf("Room after SetRoomOptions(names, 30) = %+v, %v; want names on, countdown 30", r, err)
	}
	if err := a.SetRoomOptions(ctx, "no-such-room", store.RoomOptions{}); !errors.Is(err, store.ErrNoRoom) {
		t.Errorf("SetRoomOptions(no-such-room) = %v, want ErrNoRoom", err)
	}
	if err := a.TakeHandover(ctx, "room-t", "", "new"); !errors.Is(err, store.ErrNoHandover) {
		t.Errorf("TakeHandover with none offered = %v, want ErrNoHandover", err)
	}
	if err := a.OfferHandover(ctx, "room-t", "code-hash"); err != nil {
		t.Fatalf("OfferHandover: %v", err)
	}
	if err := b.TakeHandover(ctx, "room-t", "wrong", "new"); !errors.Is(err, store.ErrNoHandover) {
		t.Errorf("TakeHandover with a wrong code = %v, want ErrNoHandover", err)
	}
	if err := b.TakeHandover(ctx, "room-t", "code-hash", "new"); err != nil {
		t.Errorf("TakeHandover with the code = %v, want nil", err)
	}
	if err := a.TakeHandover(ctx, "room-t", "code-hash", "newer"); !errors.Is(err, store.ErrNoHandover) {
		t.Errorf("TakeHandover with a spent code = %v, want ErrNoHandover", err)
	}
	if r, err := a.Room(ctx, "room-t"); err != nil || r.SecretHash != "new" || r.HandoverHash != "" {
		t.Errorf("Room after the hand-over = %+v, %v; want secret hash new, no code left", r, err)
	}
	end := now.Add(time.Minute)
	if err := a.EndRoom(ctx, "room-t", end); err != nil {
		t.Fatalf("EndRoom: %v", err)
	}
	if _, err := b.RoomByCode(ctx, "TEACH1", end); !errors.Is(err, store.ErrNoRoom) {
		t.Errorf("RoomByCode of an ended room = %v, want ErrNoRoom", err)
	}
	if r, err := b.Room(ctx, "room-t"); err != nil || !r.ExpiresAt.Equal(end) {
		t.Errorf("Room after EndRoom = %+v, %v; want it expired at %v", r, err, end)
	}
	if err := b.EndRoom(ctx, "room-t", end.Add(time.Minute)); !errors.Is(err, store.ErrNoRoom) {
		t.Errorf("EndRoom of an ended room = %v, want ErrNoRoom", err)
	}
}
