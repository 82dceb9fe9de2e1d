package docs

import (
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// The pages whose links are checked, relative to the repository root: the
// README, CONTRIBUTING and every other page at the root, the pages of
// docs/, and the scenario file format.
var pageGlobs = []string{"*.md", "docs/*.md", "scenarios/README.md"}

// TestLinksResolve fails on a relative link or image in the documentation
// whose file does not exist, or whose #anchor names no heading of its page:
// pages move between the README and docs/, and a link left behind would
// only show as a 404 on GitHub.
func TestLinksResolve(t *testing.T) {
	t.Parallel()
	root := ".."
	var pages []string
	for _, g := range pageGlobs {
		m, err := filepath.Glob(filepath.Join(root, g))
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, m...)
	}
	if len(pages) < 3 {
		t.Fatalf("Glob(%q) found %d pages, want the README, CONTRIBUTING and docs/", pageGlobs, len(pages))
	}
	for _, page := range pages {
		rel, _ := filepath.Rel(root, page)
		t.Run(rel, func(t *testing.T) {
			t.Parallel()
			for _, p := range brokenLinks(t, page) {
				t.Errorf("%s:%s", rel, p)
			}
		})
	}
}

// TestBrokenLinksFound proves the checker can fail: a page with one link
// of each broken sort, beside good ones.
func TestBrokenLinksFound(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, filepath.Join(dir, "other.md"), "# Other page\n\n## Flags and `--db`\n")
	write(t, filepath.Join(dir, "pic.png"), "")
	page := filepath.Join(dir, "page.md")
	write(t, page, strings.Join([]string{
		"# A page",
		"![a picture](pic.png) [good](other.md#flags-and---db) [same](#a-page) [web](https://example.org/x.md)",
		"[missing file](nope.md) and ![missing picture](gone.png)",
		"[missing anchor](other.md#no-such-heading) [missing here](#nowhere)",
		"`[in code](nope.md)`",
		"```",
		"[in a block](nope.md)",
		"```",
	}, "\n"))
	got := brokenLinks(t, page)
	want := []string{
		"3: nope.md: no such file",
		"3: gone.png: no such file",
		"4: other.md#no-such-heading: no heading no-such-heading in other.md",
		"4: #nowhere: no heading nowhere in page.md",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("brokenLinks(page.md) =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestSlug(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ heading, want string }{
		{"Run it, test it", "run-it-test-it"},
		{"The explorer against SPIN (.ci/spin)", "the-explorer-against-spin-cispin"},
		{"`go test -bench` (median of 3 runs, go1.26.8, 2 cores)", "go-test--bench-median-of-3-runs-go1268-2-cores"},
		{"Under a crowd, and killed", "under-a-crowd-and-killed"},
		{"[The model](model.md) and *its* rules", "the-model-and-its-rules"},
		{"snake_case stays", "snake_case-stays"},
	} {
		if got := slug(tc.heading); got != tc.want {
			t.Errorf("slug(%q) = %q, want %q", tc.heading, got, tc.want)
		}
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// brokenLinks reads a page and returns "line: target: why" for each link
// that does not resolve.
func brokenLinks(t *testing.T, page string) []string {
	t.Helper()
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	var bad []string
	for _, l := range links(string(b)) {
		if why := resolve(page, l.target); why != "" {
			bad = append(bad, strconv.Itoa(l.line)+": "+l.target+": "+why)
		}
	}
	return bad
}

// A link is the target of a Markdown link or image, and its line.
type link struct {
	line   int
	target string
}

var (
	// inlineLink matches the target of [text](target) and ![alt](target),
	// an optional title after it left out; the text itself may hold an
	// image, so only its closing bracket is matched.
	inlineLink = regexp.MustCompile(`\]\(\s*<?([^()\s<>]*)>?(?:\s+"[^"]*")?\s*\)`)
	// refLink matches a reference definition, [name]: target.
	refLink = regexp.MustCompile(`^ {0,3}\[[^\]]+\]:\s*<?([^\s<>]+)>?`)
	// heading matches an ATX heading and its text, closing #s left out.
	heading = regexp.MustCompile(`^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$`)
)

// links returns the links of a page outside code blocks and code spans,
// external ones (http, https, mailto) left out.
func links(text string) []link {
	var out []link
	for i, line := range prose(text) {
		line = stripCodeSpans(line)
		var targets []string
		for _, m := range inlineLink.FindAllStringSubmatch(line, -1) {
			targets = append(targets, m[1])
		}
		if m := refLink.FindStringSubmatch(line); m != nil {
			targets = append(targets, m[1])
		}
		for _, tg := range targets {
			if !external(tg) {
				out = append(out, link{line: i + 1, target: tg})
			}
		}
	}
	return out
}

// prose returns a page's lines with those of fenced code blocks blanked,
// so that line numbers stay those of the file.
func prose(text string) []string {
	lines := strings.Split(text, "\n")
	fence := ""
	for i, l := range lines {
		t := strings.TrimLeft(l, " ")
		switch {
		case fence == "" && (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")):
			fence = t[:3]
			lines[i] = ""
		case fence != "":
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			lines[i] = ""
		}
	}
	return lines
}

// stripCodeSpans removes the code spans of a line: a run of n backticks up
// to the next run of exactly n. An unclosed run is left as it is.
func stripCodeSpans(line string) string {
	var b strings.Builder
	for {
		start := strings.IndexByte(line, '`')
		if start < 0 {
			return b.String() + line
		}
		n := start
		for n < len(line) && line[n] == '`' {
			n++
		}
		end := closingRun(line[n:], n-start)
		if end < 0 {
			return b.String() + line
		}
		b.WriteString(line[:start])
		line = line[n+end+(n-start):]
	}
}

// closingRun returns the index in s of the first run of exactly n
// backticks, or -1.
func closingRun(s string, n int) int {
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == '`' {
			j++
		}
		if j-i == n {
			return i
		}
		i = j
	}
	return -1
}

func external(target string) bool {
	for _, scheme := range []string{"http:", "https:", "mailto:"} {
		if strings.HasPrefix(strings.ToLower(target), scheme) {
			return true
		}
	}
	return false
}

// resolve says why a link of page does not resolve, or "" when it does:
// its file must exist, and an anchor into a Markdown page must name one
// of its headings.
func resolve(page, target string) string {
	path, anchor, _ := strings.Cut(target, "#")
	file := page
	if path != "" {
		p, err := url.PathUnescape(path)
		if err != nil {
			return "not a path: " + err.Error()
		}
		file = filepath.Join(filepath.Dir(page), filepath.FromSlash(p))
		if _, err := os.Stat(file); err != nil {
			return "no such file"
		}
	}
	if anchor == "" || !strings.HasSuffix(file, ".md") {
		return ""
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return err.Error()
	}
	if !anchors(string(b))[anchor] {
		return "no heading " + anchor + " in " + filepath.Base(file)
	}
	return ""
}

// anchors returns the anchors GitHub gives a page's headings: their slugs,
// a repeated one followed by -1, -2, ...
func anchors(text string) map[string]bool {
	seen := map[string]int{}
	out := map[string]bool{}
	for _, line := range prose(text) {
		m := heading.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		s := slug(m[1])
		if n := seen[s]; n > 0 {
			out[s+"-"+strconv.Itoa(n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}

// inlineMarkup matches what a heading's rendered text leaves out: a link's
// target (its text stays) and the marks of code and emphasis.
var inlineMarkup = regexp.MustCompile("\\]\\([^)]*\\)|[`*\\[]")

// slug is GitHub's anchor for a heading: its text lowercased, spaces to
// hyphens, punctuation but hyphens and underscores dropped.
func slug(text string) string {
	text = inlineMarkup.ReplaceAllString(text, "")
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
