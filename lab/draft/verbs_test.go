package draft_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"fencelab/lab"
	"fencelab/lab/draft"
)

// TestEveryVerbApplies: each verb, built as the page builds it, changes
// the draft through Apply (Run alone changes nothing), and a verb added
// without its case here fails.
func TestEveryVerbApplies(t *testing.T) {
	t.Parallel()
	f := base("scope.2.name=other", "resource.2.name=mail",
		"ev.1.kind=acquire", "ev.1.actor=A", "ev.2.kind=pause", "ev.2.actor=A", "ev.3.kind=read", "ev.3.actor=A")
	ops := map[draft.Verb]string{
		draft.Run: string(draft.Run), draft.Up: draft.Op(draft.Up, 2), draft.Down: draft.Op(draft.Down, 2), draft.Dup: draft.Op(draft.Dup, 2),
		draft.Del: draft.Op(draft.Del, 2), draft.Add: draft.AddOp(lab.Resume, 2), draft.ActorAdd: string(draft.ActorAdd),
		draft.ActorDel: draft.Op(draft.ActorDel, 2), draft.ScopeAdd: string(draft.ScopeAdd), draft.ScopeDel: draft.Op(draft.ScopeDel, 2),
		draft.ResourceAdd: string(draft.ResourceAdd), draft.ResourceDel: draft.Op(draft.ResourceDel, 2),
	}
	for _, v := range draft.Verbs() {
		op, ok := ops[v]
		if !ok {
			t.Errorf("verb %s has no case in TestEveryVerbApplies", v)
			continue
		}
		d := draft.Decode(f)
		focus := draft.Apply(&d, op)
		diff := cmp.Diff(draft.Decode(f), d)
		if changed := diff != ""; changed != (v != draft.Run) || (focus != "") != (v != draft.Run) {
			t.Errorf("Apply(%q): changed %t, focus %q; want a change and a focus unless it is %s (-before +after):\n%s", op, changed, focus, draft.Run, diff)
		}
	}
}

// TestOpTemplates: the script fills in the templates and gets what Op and
// AddOp build.
func TestOpTemplates(t *testing.T) {
	t.Parallel()
	fill := strings.NewReplacer("{verb}", string(draft.Dup), "{kind}", string(lab.Write), "{n}", "12")
	if got, want := fill.Replace(draft.OpTemplate), draft.Op(draft.Dup, 12); got != want {
		t.Errorf("OpTemplate gives %q, Op %q", got, want)
	}
	if got, want := fill.Replace(draft.AddOpTemplate), draft.AddOp(lab.Write, 12); got != want {
		t.Errorf("AddOpTemplate gives %q, AddOp %q", got, want)
	}
}
