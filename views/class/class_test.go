package class_test

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"fencelab/lab"
	"fencelab/views/class"
)

// TestEveryClassHasItsRow: a class added to lab without its row, or with
// a row missing a column, fails here, naming the column, instead of
// showing as an empty word or an uncoloured bar.
func TestEveryClassHasItsRow(t *testing.T) {
	t.Parallel()
	rows, classes := class.Rows(), lab.Classes()
	if len(rows) != len(classes) {
		t.Errorf("views/class has %d rows, lab has %d classes (%v): one row a class", len(rows), len(classes), classes)
	}
	css, err := os.ReadFile("../../static/css/site.css")
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range classes {
		j := slices.IndexFunc(rows, func(r class.Row) bool { return r.Class == c })
		if j < 0 {
			t.Errorf("class %s has no row in views/class (rows, class.go)", c)
			continue
		}
		if j != i {
			t.Errorf("views/class: class %s is row %d, want %d: the rows follow lab.Classes, from the most severe", c, j, i)
		}
		r := class.Of(c)
		v := reflect.ValueOf(r)
		for j := range v.NumField() {
			if f := v.Field(j); f.Kind() == reflect.String && f.String() == "" {
				t.Errorf("class %s: its row in views/class has no %s", c, v.Type().Field(j).Name)
			}
		}
		for _, rule := range []string{"--SLUG:", "--SLUG-bg:", "--SLUG-line:", ".cls.cls-SLUG ", ".cls-tag.cls-SLUG ", ".verdict-SLUG "} {
			if rule = strings.ReplaceAll(rule, "SLUG", r.Slug); !strings.Contains(string(css), rule) {
				t.Errorf("class %s has no colour on the pages: add %s to static/css/site.css", c, strings.TrimSpace(rule))
			}
		}
	}
}

// TestOfNoClass: no class, and a name the engine never gives, have no
// words and no sign, so that the pages fall back to their own.
func TestOfNoClass(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		c    lab.Class
		slug string
	}{{"", "clean"}, {"no-such-class", "no-such-class"}} {
		r := class.Of(tt.c)
		if r.Words != "" || r.Short != "" || r.Verdict != "" || r.Glyph != "" || r.Slug != tt.slug || r.Fill == "" || r.Wash == "" {
			t.Errorf("class.Of(%q) = %+v, want no words or sign, slug %q and the colours of none", tt.c, r, tt.slug)
		}
	}
	rows := class.Rows()
	rows[0].Words = "changed"
	if class.Rows()[0].Words == "changed" {
		t.Error("class.Rows() after changing what it returned: want its own copy")
	}
}
