package export

import (
	"fmt"
	"io"
	"regexp"
	"strings"

	"fencelab/lab"
)

// Markdown writes a run for a postmortem: title, description, when picture
// is not empty the diagram as an image, the per-step table for the chosen
// policies, the verdicts and, when link is not empty, the permanent link.
// Everything the user typed is escaped for Markdown with backslashes, never
// HTML entities, so that the export also reads as plain text.
func Markdown(w io.Writer, s *lab.Scenario, t *lab.Trace, policies []lab.Policy, link, picture string) error {
	return MarkdownDiagram(w, s, t, policies, link, picture, DiagramPolicy(policies))
}

// MarkdownDiagram is Markdown with the run's Mermaid sequence diagram
// (Mermaid) drawn under policy d, after the verdicts: wikis that render
// Mermaid show it as a picture with no image to host.
func MarkdownDiagram(w io.Writer, s *lab.Scenario, t *lab.Trace, policies []lab.Policy, link, picture string, d lab.Policy) error {
	return MarkdownWith(w, s, t, policies, MarkdownOptions{Link: link, Picture: picture, Diagram: d})
}

// MarkdownOptions are what a Markdown export adds to the run: its link,
// its picture, the policy of its Mermaid diagram, and ModelNote, which,
// when something else ran beside the model (a probe's receiver), titles
// the verdicts "The model's verdicts" and says whose they are.
type MarkdownOptions struct {
	Link, Picture string
	Diagram       lab.Policy
	ModelNote     string
}

// MarkdownWith is Markdown with every option.
func MarkdownWith(w io.Writer, s *lab.Scenario, t *lab.Trace, policies []lab.Policy, o MarkdownOptions) error {
	link, picture, d := o.Link, o.Picture, o.Diagram
	if d == "" {
		d = DiagramPolicy(policies)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## %s\n\n", mdLine(s.Title))
	for _, para := range Paragraphs(s.Description) {
		if label, rest, ok := CutOriginal(para); ok { // the original's words, quoted as its
			fmt.Fprintf(&b, "> **%s** %s\n\n", mdCell(label), mdLine(rest))
			continue
		}
		fmt.Fprintf(&b, "%s\n\n", mdLine(para))
	}
	if picture != "" {
		fmt.Fprintf(&b, "![%s](%s)\n\n", mdText("Space-time diagram of "+s.Title), picture)
	}
	b.WriteString("| # | actor | event | token |")
	sep := "|--:|---|---|--:|"
	for _, p := range policies {
		fmt.Fprintf(&b, " %s |", p)
		sep += "---|"
	}
	b.WriteString("\n" + sep + "\n")
	fresh := map[lab.Policy]map[int]lab.Freshness{}
	for _, p := range policies {
		fresh[p] = lab.RMWFreshness(t, p)
	}
	for i, st := range t.Steps {
		fmt.Fprintf(&b, "| %d | %s | %s | %s |", st.Index, mdCell(st.Event.Actor), mdEvent(st.Event), mdToken(st.Token))
		for _, p := range policies {
			o := st.Outcomes.Of(p)
			reason := strings.TrimPrefix(o.Reason, string(o.Decision)+": ")
			if stale := fresh[p][i].Describe(); stale != "" && !strings.Contains(reason, "(version ") { // cas's reason says it already
				reason += " (" + stale + ")"
			}
			fmt.Fprintf(&b, " **%s** %s"+cellBreak+"%s |", o.Decision, mdCell(reason), mdCell(Values(o.Values, o.Tokens)+Versions(o.Versions)))
		}
		b.WriteString("\n")
	}
	if o.ModelNote != "" {
		fmt.Fprintf(&b, "\n### The model's verdicts\n\n%s\n\n", mdLine(o.ModelNote))
	} else {
		b.WriteString("\n### Verdicts\n\n")
	}
	for _, p := range policies {
		fmt.Fprintf(&b, "- **%s**: %s\n", p, mdCell(Verdict(t.Summary[p])))
	}
	for _, wn := range t.Warnings {
		fmt.Fprintf(&b, "- step %d skipped: %s\n", wn.Step, mdText(wn.Message))
	}
	if len(t.Steps) > 0 {
		fmt.Fprintf(&b, "\n### Sequence diagram under %s\n\n```mermaid\n%s```\n", d, Mermaid(s, t, d))
	}
	if link != "" {
		fmt.Fprintf(&b, "\nPermanent link: <%s> (engine %s)\n", link, lab.Version)
	}
	_, err := io.WriteString(w, strings.Map(replaceControl, b.String()))
	return err
}

// mdLine is mdCell that no line-start markup can take over: a title or
// paragraph on one line, with "~" escaped so that "~~~" opens no code
// block.
func mdLine(s string) string {
	return strings.ReplaceAll(mdCell(s), "~", `\~`)
}

// replaceControl replaces the control characters a saved run may hold from
// before they were refused (C0 but line breaks and tabs, DEL, C1) with
// U+FFFD, so that printing the export cannot act on a terminal.
func replaceControl(r rune) rune {
	if r == '\n' || r == '\t' || r >= 0x20 && r < 0x7f || r > 0x9f {
		return r
	}
	return '\uFFFD'
}

// cellBreak parts the lines of a table cell. A <br> broke them once, but
// a renderer in safe mode (markdown-it, a chat, a ticket tracker) prints
// it as it is, and as plain text it reads as noise: a separator reads as
// words in every renderer.
const cellBreak = " · "

func mdEvent(e lab.Event) string {
	s := mdCell(lab.DescribeEvent(e))
	if e.Note != "" {
		s += cellBreak + "_" + mdCell(e.Note) + "_"
	}
	return s
}

func mdToken(t *int64) string {
	if t == nil {
		return ""
	}
	return fmt.Sprint(*t)
}

// mdText escapes the characters that would start Markdown or HTML markup.
// A comparison such as "41 < 42" and an address a GFM renderer would link
// become code spans, where every character is itself; elsewhere a backslash escapes what would be markup:
// "<" before a tag's first letter, "&" before an entity's, ">" opening a
// quote, and the emphasis, link, heading, code and table characters.
func mdText(s string) string {
	var b strings.Builder
	last := 0
	for _, m := range literal.FindAllStringIndex(s, -1) {
		b.WriteString(mdEscape(s[last:m[0]], last == 0))
		b.WriteString("`" + s[m[0]:m[1]] + "`")
		last = m[1]
	}
	b.WriteString(mdEscape(s[last:], last == 0))
	return b.String()
}

// literal is what goes in a code span, where every character is itself:
// two numbers compared, as reasons and lessons compare tokens, and what a
// GFM renderer would turn into a live link (an address with a scheme or
// starting www., an e-mail address), which in a title or a note is the
// user's text, not the lab's link. No backtick or "|" is taken in, so the
// span stays one and a table cell stays whole.
var literal = regexp.MustCompile(`\d+(?:\.\d+)? (?:<=|>=|<|>|≤|≥) \d+(?:\.\d+)?` +
	`|(?i:[a-z][a-z0-9+.-]*://|www\.)[^\s<>` + "`" + `|]+` +
	`|[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+`)

var mdEscaper = strings.NewReplacer(`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "#", `\#`, "|", `\|`)

func mdEscape(s string, start bool) string {
	s = mdEscaper.Replace(s)
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		next := byte(' ')
		if i+1 < len(s) {
			next = s[i+1]
		}
		letter := 'a' <= next|0x20 && next|0x20 <= 'z'
		switch {
		case c == '<' && (letter || next == '/' || next == '!' || next == '?'),
			c == '&' && (letter || next == '#'),
			c == '>' && start && strings.TrimSpace(s[:i]) == "":
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// mdCell is mdText on one line, for a table cell.
func mdCell(s string) string {
	return mdText(strings.Join(strings.Fields(s), " "))
}
