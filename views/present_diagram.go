package views

import (
	"net/url"

	"fencelab/lab"
	"fencelab/views/export"
	"fencelab/views/paths"
)

// DiagramPolicy is the policy a page's diagram shows: asked when it names
// one of lab.Policies; else export.DiagramPolicy, the one rule of every
// page and export: the default policy that checks tokens (fenced) when it
// is among the chosen, or none are (most lessons turn on what fencing
// does); else the first chosen.
func DiagramPolicy(chosen []lab.Policy, asked string) lab.Policy {
	if p := lab.Policy(asked); lab.PolicyIndex(p) >= 0 {
		return p
	}
	return export.DiagramPolicy(chosen)
}

// pageQuery keeps the reader's choices in a link: the table's policies
// and the diagram's, unless it is the default for them.
func pageQuery(chosen []lab.Policy, d lab.Policy) url.Values {
	q := url.Values{}
	for _, p := range chosen {
		q.Add("p", string(p))
	}
	if d != DiagramPolicy(chosen, "") {
		q.Set("d", string(d))
	}
	return q
}

// withQuery is path with q, if any.
func withQuery(path string, q url.Values) string {
	if len(q) == 0 {
		return path
	}
	return path + "?" + q.Encode()
}

// diagramLink is the page at path with the diagram under policy d, scrolled to it.
func diagramLink(path string, r *Report, d lab.Policy) string {
	return withQuery(path, pageQuery(r.Policies, d)) + "#diagram"
}

// presentLink is the presentation of the page at path, with the same choices.
func presentLink(path string, r *Report, d lab.Policy) string {
	return withQuery(paths.PresentPathOf(path), pageQuery(r.Policies, d))
}

// markdownLink is the Markdown export of run id with the table's policies.
func markdownLink(id string, r *Report) string {
	return withQuery(paths.RunMarkdownPath(id), pageQuery(r.Policies, DiagramPolicy(r.Policies, "")))
}

// svgLink is the diagram of run id under policy d, as a file.
func svgLink(id string, d lab.Policy) string {
	return withQuery(paths.RunSVGPath(id), url.Values{"d": {string(d)}})
}

// pngLink is the diagram of run id under policy d as a full-size picture.
func pngLink(id string, d lab.Policy) string {
	return withQuery(paths.RunPNGPath(id), url.Values{"d": {string(d)}, "size": {"full"}})
}

// scenarioExports are the built-in's Markdown, SVG and full PNG, under the
// policies and diagram the page shows: the same files a saved run has,
// before any save.
func scenarioMarkdownLink(name string, r *Report, d lab.Policy) string {
	return withQuery(paths.ScenarioMarkdownPath(name), pageQuery(r.Policies, d))
}

func scenarioSVGLink(name string, d lab.Policy) string {
	return withQuery(paths.ScenarioSVGPath(name), url.Values{"d": {string(d)}})
}

func scenarioPNGLink(name string, d lab.Policy) string {
	return withQuery(paths.ScenarioPNGPath(name), url.Values{"d": {string(d)}, "size": {"full"}})
}
