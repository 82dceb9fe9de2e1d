package server_test

import (
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestEditorRMWByKeyboard reaches A's rmw checkbox on the last card of
// lease-service-forgets with Tab from its value and clears it with Space:
// cas, which rejected A's stale read-modify-write, now accepts the write,
// since a plain write states no condition. Ticking it again brings the
// rejection back.
func TestEditorRMWByKeyboard(t *testing.T) {
	base := startServer(t)
	ctx := newBrowser(t)
	openEditor(t, ctx, base+"/lab?from=lease-service-forgets&p=fenced&p=cas")
	if got := decisionAt(t, ctx, 9, "cas"); got != "rejected" {
		t.Fatalf("as written, cas decides A's write (step 9) %q, want rejected", got)
	}
	noReload(t, ctx)
	eval[chromedp.Void](t, ctx, `document.getElementById("ev-9").scrollIntoView({block: "center"})`)
	run(t, ctx, "Tab from card 9's value", chromedp.Focus(chromedp.ID("ev-9-value")), chromedp.KeyEvent(kb.Tab))
	if got := eval[string](t, ctx, `document.activeElement.id`); got != "ev-9-rmw" {
		t.Fatalf("Tab from card 9's value lands on %q, want the rmw checkbox ev-9-rmw", got)
	}
	if got := eval[string](t, ctx, `document.querySelector('label[for="ev-9-rmw"]').textContent`); got == "" {
		t.Errorf("the rmw checkbox has no label")
	}
	before := updates(t, ctx)
	run(t, ctx, "Space on the rmw checkbox", chromedp.KeyEvent(" "))
	waitForUpdate(t, ctx, before, "cas to accept A's plain write",
		`(document.querySelector('#step-9 td[data-label="cas"] .badge') || {textContent: ""}).textContent.includes("accepted")`)
	if on := eval[bool](t, ctx, `document.getElementById("ev-9-rmw").checked`); on {
		t.Errorf("after Space, ev-9-rmw is still checked")
	}
	if got := finalValue(t, ctx, "cas"); got != "balance 120" {
		t.Errorf("with A's write plain, cas ends as %q, want balance 120", got)
	}
	screenshot(t, ctx, "editor-rmw-cleared")

	before = updates(t, ctx)
	run(t, ctx, "Space again", chromedp.KeyEvent(" "))
	waitForUpdate(t, ctx, before, "cas to reject A's stale rmw write again",
		`(document.querySelector('#step-9 td[data-label="cas"] .badge') || {textContent: ""}).textContent.includes("rejected")`)
	checkNoReload(t, ctx, "ticking rmw by keyboard")
}

// TestEditorScopesAndResourcesModel3 opens the scopes and resources of
// two-leases-one-worker: the resource's tokens select says a token per
// scope, and choosing one token for all scopes brings back the
// scope-mismatch lockout under fenced (A's invoices write rejected).
func TestEditorScopesAndResourcesModel3(t *testing.T) {
	base := startServer(t)
	ctx := newBrowser(t)
	openEditor(t, ctx, base+"/lab?from=two-leases-one-worker&p=fenced")
	if got := decisionAt(t, ctx, 9, "fenced"); got != "accepted" {
		t.Fatalf("as written, fenced decides A's invoices write (step 9) %q, want accepted", got)
	}
	noReload(t, ctx)
	run(t, ctx, "open the scopes and resources", chromedp.Click(chromedp.CSS(".advanced > summary")))
	eval[chromedp.Void](t, ctx, `document.querySelector(".advanced").scrollIntoView({block: "start"})`)
	screenshot(t, ctx, "editor-scopes-resources")
	if got := eval[string](t, ctx, `document.getElementById("resource-1-tokens").value`); got != "per-scope" {
		t.Fatalf("resource-1-tokens = %q, want per-scope", got)
	}
	before := updates(t, ctx)
	run(t, ctx, "choose one token for all scopes", chromedp.SetValue(chromedp.ID("resource-1-tokens"), ""))
	eval[chromedp.Void](t, ctx, `document.getElementById("resource-1-tokens").dispatchEvent(new Event("change", {bubbles: true}))`)
	waitForUpdate(t, ctx, before, "fenced to reject A's invoices write",
		`(document.querySelector('#step-9 td[data-label="fenced"] .badge') || {textContent: ""}).textContent.includes("rejected")`)
	checkNoReload(t, ctx, "choosing shared tokens")
}
