package lab_test

import (
	"testing"

	"fencelab/lab"
)

// TestListsAreCopies: what the list functions return is the caller's own;
// changing it changes nothing for the next caller.
func TestListsAreCopies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		change func()
		first  func() string
		want   string
	}{
		{"Policies", func() { lab.Policies()[0] = "x" }, func() string { return string(lab.Policies()[0]) }, string(lab.Unfenced)},
		{"Kinds", func() { lab.Kinds()[0] = "x" }, func() string { return string(lab.Kinds()[0]) }, string(lab.Acquire)},
		{"Invariants", func() { lab.Invariants()[0] = "x" }, func() string { return string(lab.Invariants()[0]) }, string(lab.StaleOverwrite)},
		{"Classes", func() { lab.Classes()[0] = "x" }, func() string { return string(lab.Classes()[0]) }, string(lab.Corrupting)},
		{"Fields", func() { lab.Fields(lab.Acquire)[0] = "x" }, func() string { return lab.Fields(lab.Acquire)[0] }, "actor"},
	}
	for _, tt := range tests {
		tt.change()
		if got := tt.first(); got != tt.want {
			t.Errorf("after changing what %s returned, its first entry is %q, want %q", tt.name, got, tt.want)
		}
	}
}
