package lab

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// Builtin is one scenario of the built-in library.
type Builtin struct {
	Name     string    // the file name without .json, as in "paused-worker"
	Lesson   string    // the first sentence of the description
	Scenario *Scenario // parsed and validated
	Source   []byte    // the file as embedded
}

// Library is the built-in scenarios in teaching order.
type Library struct {
	List []Builtin
}

// LoadLibrary parses and validates every *.json file of fsys. The files
// named in order come first, in that order; the rest follow by name. One
// invalid file fails the whole library, so a broken built-in stops start-up.
func LoadLibrary(fsys fs.FS, order []string) (*Library, error) {
	files, err := fs.Glob(fsys, "*.json")
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(files))
	for _, f := range files {
		names = append(names, strings.TrimSuffix(f, ".json"))
	}
	rank := func(n string) int {
		if i := slices.Index(order, n); i >= 0 {
			return i
		}
		return len(order)
	}
	slices.SortStableFunc(names, func(a, b string) int { return rank(a) - rank(b) })
	lib := &Library{}
	for _, name := range names {
		b, err := loadBuiltin(fsys, name)
		if err != nil {
			return nil, err
		}
		lib.List = append(lib.List, b)
	}
	return lib, nil
}

func loadBuiltin(fsys fs.FS, name string) (Builtin, error) {
	src, err := fs.ReadFile(fsys, path.Clean(name+".json"))
	if err != nil {
		return Builtin{}, err
	}
	s, err := Parse(bytes.NewReader(src))
	if err != nil {
		return Builtin{}, fmt.Errorf("built-in scenario %s: %w", name, err)
	}
	return Builtin{Name: name, Lesson: firstSentence(s.Description), Scenario: s, Source: src}, nil
}

// Get returns the built-in called name.
func (l *Library) Get(name string) (Builtin, bool) {
	for _, b := range l.List {
		if b.Name == name {
			return b, true
		}
	}
	return Builtin{}, false
}

// firstSentence is the text up to and including the first ". ".
func firstSentence(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}
