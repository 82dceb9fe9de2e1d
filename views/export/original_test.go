package export

import (
	"strings"
	"testing"
	"unicode/utf8"

	"fencelab/lab"
)

func TestOriginal(t *testing.T) {
	t.Parallel()
	label := LessonLabel("paused-worker", BeforeEdit)
	got := Original(label, "First.\n\nEvery ordering: of 720, some.")
	if want := "paused-worker's lesson, before your edit: First. Every ordering: of 720, some."; got != want {
		t.Errorf("Original = %q, want %q: one paragraph, so that no sentence stands as the copy's own", got, want)
	}
	if l, rest, ok := CutOriginal(got); !ok || l != label || rest != "First. Every ordering: of 720, some." {
		t.Errorf("CutOriginal(%q) = %q, %q, %v", got, l, rest, ok)
	}
	// A copy of a copy: the user's own words are labelled, the original's stay as they were.
	again := Original(LessonLabel("run X", BeforeEdit), "Mine.\n\n"+got)
	if want := "run X's lesson, before your edit: Mine.\n\n" + got; again != want {
		t.Errorf("Original of a copy = %q, want %q", again, want)
	}
	if Original(label, "") != "" {
		t.Error("Original of no description is not empty")
	}
	for _, own := range []string{"Unfenced, the final value is old-result: corrupting.", "Every ordering: of 720.", "A note: before your edit"} {
		if _, _, ok := CutOriginal(own); ok {
			t.Errorf("CutOriginal takes %q, a run's own words, for an original's", own)
		}
	}
	long := Original(label, strings.Repeat("é", lab.MaxDescription))
	if n := utf8.RuneCountInString(long); n != lab.MaxDescription || !strings.HasSuffix(long, "…") {
		t.Errorf("Original of a full description: %d runes, want %d ending in …", n, lab.MaxDescription)
	}
}
