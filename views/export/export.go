// Package export writes a run as text: the Markdown export and the
// one-line values and verdicts the CLI's table shares with it. It needs no
// templ, so the CLI uses it without compiling the pages.
package export

import (
	"fmt"
	"strconv"
	"strings"

	"fencelab/lab"
	"fencelab/views/class"
)

// Values shows each resource's value with the token that wrote it,
// as in "result = old-result (41), email = empty"; plain text, shared by
// the CLI's table and the Markdown export.
func Values(values map[string]*string, tokens map[string]*int64) string {
	var parts []string
	for _, name := range lab.SortedNames(values) {
		v := "empty" // one word for no value, as the pages and pictures say it
		if values[name] != nil {
			v = *values[name]
			if tok := tokens[name]; tok != nil {
				v += fmt.Sprintf(" (%d)", *tok)
			}
		}
		parts = append(parts, name+" = "+v)
	}
	return strings.Join(parts, ", ")
}

// Versions names each resource's version, as in "; versions: balance 1"
// (model 3); "" for a trace without versions (no rmw write).
func Versions(versions map[string]int) string {
	if versions == nil {
		return ""
	}
	var parts []string
	for _, name := range lab.SortedNames(versions) {
		parts = append(parts, fmt.Sprintf("%s %d", name, versions[name]))
	}
	return "; versions: " + strings.Join(parts, ", ")
}

// Verdict is a policy's verdict in one line of plain text: its final
// values, then its violations with their steps, grouped by class from the
// most severe: "corrupting: stale-overwrite at step 8; deposed: ...".
// Violations without a class (a trace stored before classes) are listed
// after "violations:".
func Verdict(s lab.Summary) string {
	out := "final " + Values(s.Final, nil)
	if len(s.Violations) == 0 {
		return out + "; no violations"
	}
	for _, c := range append(lab.Classes(), "") {
		var vs []string
		for _, v := range s.Violations {
			if v.Class == c {
				vs = append(vs, fmt.Sprintf("%s at step %d", v.Kind, v.Step))
			}
		}
		if len(vs) > 0 {
			name := string(c)
			if c == "" {
				name = "violations"
			}
			out += "; " + name + ": " + strings.Join(vs, ", ")
		}
	}
	return out
}

// Paragraphs splits a description at blank lines.
func Paragraphs(s string) []string {
	var out []string
	for _, p := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// ClassWords is what a class of violation does, in a few words, as every
// page and picture says it ("corrupts data"); "" for no class.
func ClassWords(c lab.Class) string { return class.Of(c).Verdict }

// Plural writes "1 event", "3 events", "2 policies".
func Plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	if stem, ok := strings.CutSuffix(word, "y"); ok {
		return strconv.Itoa(n) + " " + stem + "ies"
	}
	return strconv.Itoa(n) + " " + word + "s"
}
