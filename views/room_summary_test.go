package views_test

import (
	"bytes"
	"strings"
	"testing"

	"fencelab/views"
)

// TestSummarySharesOfTheClass: one answer in a class of two is half the
// class, not 100%, and the student who did not answer is counted.
func TestSummarySharesOfTheClass(t *testing.T) {
	t.Parallel()
	sum := views.RoomSummary{Title: "t", ID: "x", Steps: []int{8}, Questions: []views.SummaryQuestion{
		{Step: 8, Ask: "Accepted or rejected?", Answer: "rejected", Reveal: "Rejected.", Rejected: 1, Revealed: true, Class: 2},
	}}
	var b bytes.Buffer
	if err := views.RoomSummaryPage(sum).Render(t.Context(), &b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"<strong>1</strong> of 2 answered; <strong>1</strong> right, <strong>0</strong> wrong", "<strong>1</strong> (50%)", "<strong>0</strong> (0%)", "no answer"} {
		if !strings.Contains(page, want) {
			t.Errorf("the summary lacks %q", want)
		}
	}
	if strings.Contains(page, "(100%)") {
		t.Error("the summary gives one answer of a class of two as 100%")
	}
}
