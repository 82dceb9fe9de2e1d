package server_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"fencelab/server"
	"fencelab/views/paths"
)

// TestRoomBrowser is a class in browsers: one presenter and three
// students, each in a browser context of their own. The students follow
// the presenter to step 8 of paused-worker, answer, the presenter sees
// the count and then the split, the reveal tells each student whether
// they were right, a student who was away catches up on return, and a
// student cannot move the room.
func TestRoomBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped under -short")
	}
	base := startRoomServer(t, server.RoomConfig{})
	teacher := newBrowser(t)
	run(t, teacher, "open the presentation", chromedp.EmulateViewport(1280, 720),
		chromedp.Navigate(base+"/scenarios/paused-worker/present"), chromedp.WaitVisible(chromedp.CSS(".present-table")))
	run(t, teacher, "start a live room", chromedp.Click(chromedp.CSS(".present-menu > summary")),
		chromedp.Click(chromedp.CSS(".room-start button")), chromedp.WaitVisible(chromedp.CSS(".room-join-code")))
	code := strings.TrimSpace(eval[string](t, teacher, `document.querySelector(".room-join-code").textContent`))
	room := eval[string](t, teacher, `document.querySelector(".present").dataset.room`)
	// No phone yet, no answer yet: the counts say 0, never "undefined".
	waitFor(t, teacher, "the stream", `document.querySelector(".room-join-count").textContent.includes("0")`)
	if got := eval[string](t, teacher, `document.querySelector(".room-join-count").textContent.replace(/\s+/g, " ").trim()`); got != "0 students joined" {
		t.Errorf("the invitation with no phone = %q, want %q", got, "0 students joined")
	}
	screenshot(t, teacher, "room-join-1280x720")
	run(t, teacher, "fold the invitation", chromedp.Click(chromedp.CSS(".room-join-summary")))
	run(t, teacher, "ask step 8 before anyone joined", chromedp.KeyEvent(kb.End))
	waitFor(t, teacher, "the question panel", `!document.querySelector(".predict").hidden && !document.querySelector(".predict-waiting").hidden`)
	if got := eval[string](t, teacher, `document.querySelector(".predict-waiting").textContent.replace(/\s+/g, " ").trim()`); got != "0 of 0 answered. Press Next to reveal." {
		t.Errorf("the question panel with no phone = %q, want %q", got, "0 of 0 answered. Press Next to reveal.")
	}
	run(t, teacher, "back to step 1", chromedp.KeyEvent(kb.Home))

	names := []string{"Ada", "", "<i>Cy</i>"}
	guesses := []string{"rejected", "rejected", "accepted"}
	var phones []context.Context
	for i := range 3 {
		phone := newTab(t, teacher)
		run(t, phone, "student "+strconv.Itoa(i)+" joins", chromedp.EmulateViewport(375, 812, chromedp.EmulateMobile),
			chromedp.Navigate(base+"/join"), chromedp.SendKeys(chromedp.CSS("#join-code"), strings.ToLower(code)),
			chromedp.Submit(chromedp.CSS(".join-form")), chromedp.WaitVisible(chromedp.CSS(".student-step.is-current")))
		waitFor(t, phone, "the stream", `document.querySelector(".student").classList.contains("student-js")`)
		if names[i] != "" {
			run(t, phone, "type a name", chromedp.SendKeys(chromedp.CSS(".student-name-input"), names[i]))
		}
		phones = append(phones, phone)
	}
	waitFor(t, teacher, "three students", `document.querySelector(".room-students").textContent === "3"`)

	run(t, teacher, "go to the last step", chromedp.KeyEvent(kb.End))
	for i, phone := range phones {
		waitFor(t, phone, "step 8 on phone "+strconv.Itoa(i),
			`document.querySelector(".student-step.is-current")?.dataset.step === "8" && !document.querySelector('.student-step[data-step="8"] .student-choices').hidden`)
	}
	// Step 6 asks too, but the presenter went past it: it is closed, and says so.
	if got := eval[string](t, phones[0], `document.querySelector('.student-step[data-step="6"] .student-verdict').textContent`); !strings.Contains(got, "moved on") {
		t.Errorf("step 6, passed over by the presenter, says %q on the phone, want that the class moved on", got)
	}
	screenshot(t, phones[0], "room-student-question-375x812")
	for i, phone := range phones {
		run(t, phone, "answer "+guesses[i], chromedp.Click(chromedp.CSS(`.student-step[data-step="8"] button[value="`+guesses[i]+`"]`)))
		waitFor(t, phone, "the answer taken", `!document.querySelector('.student-step[data-step="8"] .student-mine').hidden`)
	}
	waitFor(t, teacher, "three answers", `document.querySelector(".predict-waiting").textContent.replace(/\s+/g, " ").startsWith("3 of 3 answered")`)
	screenshot(t, teacher, "room-answers-1280x720")

	run(t, teacher, "reveal", chromedp.KeyEvent(kb.ArrowRight))
	waitFor(t, teacher, "the split", `!document.querySelector(".predict-split").hidden`)
	split := eval[string](t, teacher, `Array.from(document.querySelectorAll(".split")).map(s => s.textContent.replace(/\s+/g, " ").trim()).join(" | ")`)
	if want := "Accepted 1 (33%) | Rejected 2 (67%) ✓ right answer"; split != want {
		t.Errorf("the presenter's split = %q, want %q", split, want)
	}
	screenshot(t, teacher, "room-reveal-1280x720")
	for i, phone := range phones {
		want := "✓ You were right."
		if guesses[i] != "rejected" {
			want = "✕ Not this time."
		}
		waitFor(t, phone, "the verdict on phone "+strconv.Itoa(i),
			`(document.querySelector('.student-step[data-step="8"] .student-verdict').textContent || "").startsWith(`+jsString(want)+`)`)
	}
	screenshot(t, phones[2], "room-student-reveal-375x812")

	// A student cannot move the room: the presenter's controls need the
	// secret only the presenter's browser holds. The step is sent with
	// every cookie the student's browser has for the lab.
	jar, err := chromedp.Call(phones[0], network.GetCookies, network.GetCookiesParams{URLs: []string{base + paths.RoomStepPath(room)}})
	if err != nil {
		t.Fatalf("the student's cookies: %v", err)
	}
	req, _ := http.NewRequest(http.MethodPost, base+paths.RoomStepPath(room), strings.NewReader("step=2"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for _, ck := range jar.Cookies {
		req.AddCookie(&http.Cookie{Name: ck.Name, Value: ck.Value})
	}
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != http.StatusForbidden {
		t.Errorf("a step with the student's cookies = %v, %v; want 403", res, err)
	} else {
		res.Body.Close()
	}
	if got := eval[string](t, teacher, `document.querySelector(".present-now").textContent`); got != "8" {
		t.Errorf("after a student's attempt the presenter is at step %s, want 8", got)
	}

	// A student who was away catches up at once on return.
	run(t, phones[1], "leave", chromedp.Navigate("about:blank"))
	run(t, teacher, "back to step 7", chromedp.KeyEvent(kb.ArrowLeft))
	run(t, phones[1], "come back", chromedp.Navigate(base+paths.JoinPath(code)))
	waitFor(t, phones[1], "step 7 on return", `document.querySelector(".student-step.is-current")?.dataset.step === "7"`)
	for i, phone := range []context.Context{phones[0], phones[2]} {
		waitFor(t, phone, "step 7 on phone "+strconv.Itoa(i), `document.querySelector(".student-step.is-current")?.dataset.step === "7"`)
	}

	// The end: the presenter ends the room, each phone shows the final screen.
	run(t, teacher, "end the room", chromedp.Click(chromedp.CSS(".present-menu > summary")),
		chromedp.Click(chromedp.CSS(".room-end-button")), chromedp.WaitVisible(chromedp.CSS(".summary-q")))
	for i, phone := range phones {
		waitFor(t, phone, "the final screen on phone "+strconv.Itoa(i), `document.querySelector(".student-ended")?.textContent.includes("ended")`)
	}
	screenshot(t, phones[0], "room-student-ended-375x812")

	students := eval[string](t, teacher, `Array.from(document.querySelectorAll(".summary-students tbody th")).map(p => p.textContent).sort().join(" | ")`)
	if !strings.Contains(students, "Ada") || !strings.Contains(students, "<i>Cy</i>") {
		t.Errorf("the presenter's summary names %q, want Ada and <i>Cy</i> as typed, as text", students)
	}
	screenshot(t, teacher, "room-summary")
}

// TestRoomHandoverBrowser hands a live room at step 5 to a second laptop
// with the one-time code: the laptop opens the presentation where the
// room is, without taking the class back to step 1, and drives it.
func TestRoomHandoverBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped under -short")
	}
	base := startRoomServer(t, server.RoomConfig{})
	teacher := newBrowser(t)
	run(t, teacher, "open the presentation", chromedp.EmulateViewport(1280, 720),
		chromedp.Navigate(base+"/scenarios/paused-worker/present"), chromedp.WaitVisible(chromedp.CSS(".present-table")))
	run(t, teacher, "start a live room", chromedp.Click(chromedp.CSS(".present-menu > summary")),
		chromedp.Click(chromedp.CSS(".room-start button")), chromedp.WaitVisible(chromedp.CSS(".room-join-code")))
	code := strings.TrimSpace(eval[string](t, teacher, `document.querySelector(".room-join-code").textContent`))
	run(t, teacher, "fold the invitation and go to step 5", chromedp.Click(chromedp.CSS(".room-join-summary")),
		chromedp.KeyEvent(kb.ArrowRight), chromedp.KeyEvent(kb.ArrowRight), chromedp.KeyEvent(kb.ArrowRight), chromedp.KeyEvent(kb.ArrowRight))
	phone, _ := stream(t, client(t), base+paths.JoinEventsPath(code))
	next(t, phone, "room", `"step":5`)

	offer, err := chromedp.Run(teacher, chromedp.Evaluate[string](`fetch(document.querySelector(".present").dataset.roomStep.replace(/step$/, "handover"),
		{method: "POST", headers: {"X-Requested-With": "test"}}).then(r => r.json()).then(j => j.code)`, chromedp.EvalAwaitPromise))
	if err != nil || len(offer) != 8 {
		t.Fatalf("the presenter's hand-over code = %q, %v", offer, err)
	}
	laptop := newTab(t, teacher)
	run(t, laptop, "take the room over", chromedp.EmulateViewport(1280, 720),
		chromedp.Navigate(base+paths.RoomTakePath(eval[string](t, teacher, `document.querySelector(".present").dataset.room`))),
		chromedp.SendKeys(chromedp.CSS("#take-code"), offer), chromedp.Submit(chromedp.CSS(".join-form")),
		chromedp.WaitVisible(chromedp.CSS(".present-table")))
	waitFor(t, laptop, "the room's step on the new laptop", `document.querySelector(".present-now").textContent === "5"`)
	screenshot(t, laptop, "room-handover-1280x720")
	run(t, laptop, "the laptop moves the room", chromedp.KeyEvent(kb.ArrowRight))
	next(t, phone, "room", `"step":6`)
}
