package sqlite

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

func testRoom(id, code string, now time.Time) Room {
	return Room{ID: id, Code: code, SecretHash: "h", Page: "/scenarios/paused-worker", Title: "t",
		Policies: []string{"unfenced", "fenced"}, Diagram: "fenced", Step: 1, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
}

// TestRooms: a code is unique among live rooms, a student answers once,
// a revealed question takes no more answers, and the counts add up.
func TestRooms(t *testing.T) {
	db, _ := open(t)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Second)
	if err := db.CreateRoom(ctx, testRoom("room-1", "ABCDEF", now)); err != nil {
		t.Fatalf("CreateRoom: %v", err)
	}
	if err := db.CreateRoom(ctx, testRoom("room-2", "ABCDEF", now)); !errors.Is(err, ErrCodeTaken) {
		t.Errorf("CreateRoom with a live room's code = %v, want ErrCodeTaken", err)
	}
	later := now.Add(2 * time.Hour)
	if err := db.CreateRoom(ctx, testRoom("room-3", "ABCDEF", later)); err != nil {
		t.Errorf("CreateRoom with an expired room's code = %v, want nil", err)
	}
	got, err := db.RoomByCode(ctx, "ABCDEF", now)
	if err != nil || got.ID != "room-1" || got.Policies[1] != "fenced" || !got.ExpiresAt.Equal(now.Add(time.Hour)) {
		t.Errorf("RoomByCode(ABCDEF) = %+v, %v; want room-1 as stored", got, err)
	}
	if _, err := db.RoomByCode(ctx, "ZZZZZZ", now); !errors.Is(err, ErrNoRoom) {
		t.Errorf("RoomByCode(ZZZZZZ) = %v, want ErrNoRoom", err)
	}

	q := &Question{Step: 8, Ask: "accepted or rejected?", Answer: "rejected", OpenedAt: now}
	if err := db.MoveRoom(ctx, "room-1", 8, q); err != nil {
		t.Fatalf("MoveRoom: %v", err)
	}
	if err := db.Answer(ctx, "room-1", Answer{Step: 7, Student: "s", Guess: "accepted", AnsweredAt: now}); !errors.Is(err, ErrNoQuestion) {
		t.Errorf("Answer at a step without a question = %v, want ErrNoQuestion", err)
	}
	// Many students at once: every answer is counted, a second one refused.
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			guess := []string{"accepted", "rejected"}[i%2]
			errs <- db.Answer(ctx, "room-1", Answer{Step: 8, Student: fmt.Sprint("s", i), Name: "n", Guess: guess, AnsweredAt: now})
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("Answer: %v", err)
		}
	}
	if err := db.Answer(ctx, "room-1", Answer{Step: 8, Student: "s1", Guess: "rejected", AnsweredAt: now}); !errors.Is(err, ErrAnswered) {
		t.Errorf("a second Answer = %v, want ErrAnswered", err)
	}
	if err := db.Reveal(ctx, "room-1", 8, now); err != nil {
		t.Fatalf("Reveal: %v", err)
	}
	if err := db.Answer(ctx, "room-1", Answer{Step: 8, Student: "late", Guess: "rejected", AnsweredAt: now}); !errors.Is(err, ErrNoQuestion) {
		t.Errorf("Answer after the reveal = %v, want ErrNoQuestion", err)
	}
	qs, err := db.Questions(ctx, "room-1")
	if err != nil || len(qs) != 1 || qs[0].Accepted != 25 || qs[0].Rejected != 25 || !qs[0].Revealed || qs[0].Answer != "rejected" {
		t.Errorf("Questions = %+v, %v; want one revealed question with 25 and 25", qs, err)
	}
	mine, err := db.Answers(ctx, "room-1", "s3")
	if err != nil || len(mine) != 1 || mine[0].Guess != "rejected" {
		t.Errorf("Answers(s3) = %+v, %v; want one rejected", mine, err)
	}
	r, _ := db.Room(ctx, "room-1")
	if r.Step != 8 {
		t.Errorf("Room step = %d, want 8", r.Step)
	}
}
