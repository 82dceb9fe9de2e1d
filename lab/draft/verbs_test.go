package draft

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"fencelab/lab"
)

func TestParseOp(t *testing.T) {
	t.Parallel()
	for _, v := range Verbs() {
		if got, want := parseOp(Op(v, 3)), (parsed{verb: v, n: 3}); got != want && v != Add {
			t.Errorf("parseOp(Op(%s, 3)) = %+v, want %+v", v, got, want)
		}
		if got, want := parseOp(string(v)), (parsed{verb: v}); got != want {
			t.Errorf("parseOp(%q) = %+v, want %+v", v, got, want)
		}
	}
	if got, want := parseOp(AddOp(lab.Write, 4)), (parsed{verb: Add, n: 4, kind: lab.Write}); got != want {
		t.Errorf("parseOp(AddOp(write, 4)) = %+v, want %+v", got, want)
	}
}

// TestEveryVerbApplies: each verb, built as the page builds it, changes
// the draft through Apply (Run alone changes nothing), and a verb added
// without its case here fails.
func TestEveryVerbApplies(t *testing.T) {
	t.Parallel()
	f := base("scope.2.name=other", "resource.2.name=mail",
		"ev.1.kind=acquire", "ev.1.actor=A", "ev.2.kind=pause", "ev.2.actor=A", "ev.3.kind=read", "ev.3.actor=A")
	ops := map[Verb]string{
		Run: string(Run), Up: Op(Up, 2), Down: Op(Down, 2), Dup: Op(Dup, 2), Del: Op(Del, 2),
		Add: AddOp(lab.Resume, 2), ActorAdd: string(ActorAdd), ActorDel: Op(ActorDel, 2),
		ScopeAdd: string(ScopeAdd), ScopeDel: Op(ScopeDel, 2), ResourceAdd: string(ResourceAdd), ResourceDel: Op(ResourceDel, 2),
	}
	for _, v := range Verbs() {
		op, ok := ops[v]
		if !ok {
			t.Errorf("verb %s has no case in TestEveryVerbApplies", v)
			continue
		}
		d := Decode(f)
		focus := Apply(&d, op)
		diff := cmp.Diff(Decode(f), d)
		if changed := diff != ""; changed != (v != Run) || (focus != "") != (v != Run) {
			t.Errorf("Apply(%q): changed %t, focus %q; want a change and a focus unless it is %s (-before +after):\n%s", op, changed, focus, Run, diff)
		}
	}
}

// TestOpTemplates: the script fills in the templates and gets what Op and
// AddOp build.
func TestOpTemplates(t *testing.T) {
	t.Parallel()
	fill := strings.NewReplacer("{verb}", string(Dup), "{kind}", string(lab.Write), "{n}", "12")
	if got, want := fill.Replace(OpTemplate), Op(Dup, 12); got != want {
		t.Errorf("OpTemplate gives %q, Op %q", got, want)
	}
	if got, want := fill.Replace(AddOpTemplate), AddOp(lab.Write, 12); got != want {
		t.Errorf("AddOpTemplate gives %q, AddOp %q", got, want)
	}
}
