package probe

import (
	"context"
	"slices"

	"fencelab/lab"
)

// Declarer is a receiver that wants to know, before each reset, what the
// coming play declares: a SQL receiver runs reset and grant once per
// resource or scope, and reads each resource's empty state.
type Declarer interface {
	Declare(d Declaration)
}

// Declaration is what a play declares: its resources and scopes in name
// order, and whether it is the concurrent mode.
type Declaration struct {
	Resources  []string
	Scopes     []string
	Concurrent bool
}

// declare tells a Declarer what s declares (its resources, default
// result; its scopes and those its events name).
func declare(r Receiver, s *lab.Scenario) {
	d, ok := r.(Declarer)
	if !ok {
		return
	}
	res := lab.SortedNames(s.Resources)
	if len(res) == 0 {
		res = []string{"result"}
	}
	scopes := lab.SortedNames(s.Scopes)
	for _, e := range s.Events {
		if e.Scope != "" && !slices.Contains(scopes, e.Scope) {
			scopes = append(scopes, e.Scope)
		}
	}
	slices.Sort(scopes)
	d.Declare(Declaration{Resources: res, Scopes: scopes})
}

// grantAs is a receiver that binds who is granted (a SQL receiver's
// :writer in grant).
type grantAs interface {
	GrantAs(ctx context.Context, scope string, token int64, writer string) error
}

// grant registers a granted token at r, naming the holder where r takes it.
func grant(ctx context.Context, r Receiver, scope string, token int64, writer string) error {
	if g, ok := r.(grantAs); ok {
		return g.GrantAs(ctx, scope, token, writer)
	}
	return r.Grant(ctx, scope, token)
}
