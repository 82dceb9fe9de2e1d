package lab

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestParseRefusesControlCharacters checks that text which would act on a
// terminal or break an export's lines is refused, naming the field, and
// that line breaks and tabs stay allowed where text has several lines.
func TestParseRefusesControlCharacters(t *testing.T) {
	t.Parallel()
	acquire := `{"actor":"A","kind":"acquire"}`
	scenario := func(title, desc, event string) string {
		return `{"version":1,"title":` + title + `,"description":` + desc + `,"events":[` + acquire + `,` + event + `]}`
	}
	write := func(value, note string) string {
		return `{"actor":"A","kind":"write","value":` + value + `,"note":` + note + `}`
	}
	fine := write(`"v"`, `"n"`)
	tests := []struct {
		name string
		src  string
		want []wantErr
	}{
		{"NUL in the title", scenario(`"a\u0000b"`, `"d"`, fine), []wantErr{{0, "title"}}},
		{"newline in the title", scenario(`"a\n~~~\nb"`, `"d"`, fine), []wantErr{{0, "title"}}},
		{"ESC in the description", scenario(`"t"`, `"\u001b[2J"`, fine), []wantErr{{0, "description"}}},
		{"C1 CSI in a value", scenario(`"t"`, `"d"`, write(`"\u009b2J"`, `"n"`)), []wantErr{{2, "value"}}},
		{"DEL in a note", scenario(`"t"`, `"d"`, write(`"v"`, `"a\u007f"`)), []wantErr{{2, "note"}}},
		{"tab in a value", scenario(`"t"`, `"d"`, write(`"a\tb"`, `"n"`)), []wantErr{{2, "value"}}},
		{"lines and tabs in a description and a note", scenario(`"t"`, `"one\r\n\ttwo"`, write(`"v"`, `"a\nb"`)), nil},
		{"printable Unicode", scenario(`"Über ✓ 41 < 42"`, `"é"`, write(`"ü"`, `"→"`)), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tt.src))
			var got []wantErr
			var ve *ValidationError
			if errors.As(err, &ve) {
				for _, fe := range ve.Errors {
					got = append(got, wantErr{fe.Index, fe.Field})
				}
			} else if err != nil {
				t.Fatalf("Parse(%q) error = %v, want a *ValidationError or nil", tt.src, err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("Parse(%q) errors = %v, want %v (%v)", tt.src, got, tt.want, err)
			}
		})
	}
}
