package server

import (
	"bytes"
	"context"
	"encoding/csv"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/labstack/echo/v4"

	"fencelab/server/store"
	"fencelab/views"
)

// handleRoomSummary is a room after class: each question's split, the
// hardest first, and each student's results. Anyone with the link may
// read it, as a saved run, but the names are the presenter's: others see
// them only when the presenter turned them on. While the room runs,
// others see only the questions revealed in class: the room's id is in
// the presenter's address bar, on the projector, and a student reading
// the summary must not find the right answer of the question still open.
func (s *Server) handleRoomSummary(c echo.Context) error {
	r, err := s.roomByID(c)
	if err != nil {
		return err
	}
	presenter := isPresenter(c, r)
	sum, err := s.summary(c.Request().Context(), r, presenter || r.ShowNames, !presenter && time.Now().Before(r.ExpiresAt))
	if err != nil {
		return err
	}
	sum.Presenter = presenter
	// The page differs by cookie (names for the presenter) and changes
	// while the room runs: no shared cache keeps it.
	h := c.Response().Header()
	h.Add(echo.HeaderVary, echo.HeaderCookie)
	h.Set(echo.HeaderCacheControl, "private, no-cache")
	if presenter {
		h.Set(echo.HeaderCacheControl, "private, no-store")
	}
	return render(c, http.StatusOK, views.RoomSummaryPage(sum))
}

// summary gathers room r's questions and answers, with the students'
// names when names is set, and only the questions revealed when
// revealedOnly is.
func (s *Server) summary(ctx context.Context, r store.Room, names, revealedOnly bool) (views.RoomSummary, error) {
	_, deck, qs, err := s.roomState(ctx, r.ID)
	if err != nil {
		return views.RoomSummary{}, err
	}
	withheld := 0
	if revealedOnly {
		all := len(qs)
		qs = slices.DeleteFunc(slices.Clone(qs), func(q store.Question) bool { return !q.Revealed })
		withheld = all - len(qs)
	}
	answers, err := s.rooms.Answers(ctx, r.ID, "")
	if err != nil {
		return views.RoomSummary{}, err
	}
	sum := views.RoomSummary{Title: r.Title, Page: r.Page, ID: r.ID, Names: names, ShowNames: r.ShowNames, Withheld: withheld,
		Created: r.CreatedAt.UTC().Format("2 January 2006, 15:04 UTC")}
	for _, q := range qs {
		_, _, reveal := deck.Question(q.Step)
		sum.Questions = append(sum.Questions, views.SummaryQuestion{Step: q.Step, Ask: q.Ask, Answer: q.Answer,
			Reveal: reveal, Revealed: q.Revealed, Accepted: q.Accepted, Rejected: q.Rejected})
		sum.Steps = append(sum.Steps, q.Step)
	}
	sum.Students = students(qs, answers, names)
	for i := range sum.Questions { // the shares are of the class
		sum.Questions[i].Class = len(sum.Students)
	}
	sort.SliceStable(sum.Questions, func(i, j int) bool {
		return sum.Questions[i].WrongShare() > sum.Questions[j].WrongShare()
	})
	return sum, nil
}

// students is each student's results, one mark per question in step
// order, the most right first; named as they last typed it when names is
// set, else "Student N".
func students(qs []store.Question, answers []store.Answer, names bool) []views.SummaryStudent {
	col := map[int]int{}
	right := map[int]string{}
	for i, q := range qs {
		col[q.Step], right[q.Step] = i, q.Answer
	}
	var out []views.SummaryStudent
	index := map[string]int{}
	for _, a := range answers {
		if _, shown := col[a.Step]; !shown { // a question left out of the summary
			continue
		}
		i, ok := index[a.Student]
		if !ok {
			i = len(out)
			index[a.Student] = i
			out = append(out, views.SummaryStudent{Marks: make([]string, len(qs))})
		}
		st := &out[i]
		if a.Name != "" {
			st.Name = a.Name
		}
		st.Answered++
		st.Marks[col[a.Step]] = "wrong"
		if a.Guess == right[a.Step] {
			st.Marks[col[a.Step]] = "right"
			st.Right++
		}
	}
	for i := range out {
		if !names || out[i].Name == "" {
			out[i].Name = "Student " + strconv.Itoa(i+1)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Right > out[j].Right })
	return out
}

// handleRoomCSV is the room's results for a spreadsheet, one row per
// student, for the presenter only: it holds the names.
func (s *Server) handleRoomCSV(c echo.Context) error {
	r, err := s.roomByID(c)
	if err != nil {
		return err
	}
	if !isPresenter(c, r) {
		return errNotPresent
	}
	sum, err := s.summary(c.Request().Context(), r, true, false)
	if err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set(echo.HeaderContentDisposition, `attachment; filename="room-`+r.ID+`.csv"`)
	h.Set(echo.HeaderCacheControl, "private, no-store")
	return c.Blob(http.StatusOK, "text/csv; charset=utf-8", resultsCSV(sum))
}

// resultsCSV writes the summary's students as CSV: a byte-order mark and
// CRLF so that spreadsheets read it as UTF-8, and names that look like
// formulas defused with a leading apostrophe.
func resultsCSV(sum views.RoomSummary) []byte {
	var b bytes.Buffer
	b.WriteString("\ufeff")
	w := csv.NewWriter(&b)
	w.UseCRLF = true
	head := []string{"student"}
	for _, n := range sum.Steps {
		head = append(head, "step "+strconv.Itoa(n))
	}
	w.Write(append(head, "right", "answered", "questions"))
	for _, st := range sum.Students {
		row := []string{defuse(st.Name)}
		row = append(row, st.Marks...)
		w.Write(append(row, strconv.Itoa(st.Right), strconv.Itoa(st.Answered), strconv.Itoa(len(sum.Steps))))
	}
	w.Flush()
	return b.Bytes()
}

// defuse makes a name safe to open in a spreadsheet: control characters
// (a tab or line break would split the cell, others hide text) are
// dropped, and a formula's first character (= + - @, or their full-width
// forms) gets an apostrophe before it wherever a cell could begin: at the
// start, and after each character a spreadsheet may split on (, ; |), so
// that `x;=cmd|'/C calc'!A0` opened with ; as the separator is text too.
func defuse(s string) string {
	var b strings.Builder
	cellStart := true
	for _, r := range s {
		switch {
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029':
			continue
		case cellStart && r == ' ':
		case cellStart && strings.ContainsRune("=+-@＝＋－＠", r):
			b.WriteByte('\'')
			cellStart = false
		default:
			cellStart = strings.ContainsRune(",;|", r)
		}
		b.WriteRune(r)
	}
	return b.String()
}
