package lab_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"fencelab/lab"
)

// facets is every facet of a policy, in one comparable value.
type facets struct {
	Default, ChecksToken, AsksLeaseService, ChecksAtClient bool
	Strict, Idempotent, Registers, CommitsLater, Claimable bool
	ChecksVersion                                          bool
}

func facetsOf(p lab.Policy) facets {
	return facets{p.Default(), p.ChecksToken(), p.AsksLeaseService(), p.ChecksAtClient(),
		p.Strict(), p.Idempotent(), p.Registers(), p.CommitsLater(), p.ClaimableByReceiver(), p.ChecksVersion()}
}

// facetCase is a policy and the facets it must have.
type facetCase struct {
	p    lab.Policy
	want facets
}

// facetCases is every policy's facets, and an unknown policy's (none).
var facetCases = []facetCase{
	{lab.Unfenced, facets{Default: true, Claimable: true}},
	{lab.ClientCheck, facets{ChecksAtClient: true}},
	{lab.Fenced, facets{Default: true, ChecksToken: true, Claimable: true}},
	{lab.FencedStrict, facets{ChecksToken: true, Strict: true, Claimable: true}},
	{lab.FencedIdempotent, facets{ChecksToken: true, Idempotent: true, Claimable: true}},
	{lab.FencedRegister, facets{ChecksToken: true, Registers: true, Claimable: true}},
	{lab.Authoritative, facets{AsksLeaseService: true}},
	{lab.FencedRacy, facets{ChecksToken: true, CommitsLater: true}},
	{lab.CAS, facets{ChecksVersion: true, Claimable: true}},
	{"no-such-policy", facets{}},
	{"", facets{}},
}

func TestPolicyFacets(t *testing.T) {
	t.Parallel()
	for _, tt := range facetCases {
		if got := facetsOf(tt.p); got != tt.want {
			t.Errorf("facets of %q = %+v, want %+v", tt.p, got, tt.want)
		}
	}
}

// TestEveryPolicyHasFacetCases: a policy added to lab without its case in
// facetCases fails here.
func TestEveryPolicyHasFacetCases(t *testing.T) {
	t.Parallel()
	for _, p := range lab.Policies() {
		if !slices.ContainsFunc(facetCases, func(c facetCase) bool { return c.p == p }) {
			t.Errorf("policy %s has no case in facetCases (lab/policy_test.go)", p)
		}
	}
}

func TestDefaultPolicies(t *testing.T) {
	t.Parallel()
	got := lab.DefaultPolicies()
	if want := []lab.Policy{lab.Unfenced, lab.Fenced}; !slices.Equal(got, want) {
		t.Errorf("DefaultPolicies() = %v, want %v", got, want)
	}
	got[0] = "x"
	if lab.DefaultPolicies()[0] != lab.Unfenced {
		t.Errorf("DefaultPolicies() after changing what it returned: %v, want its own copy", lab.DefaultPolicies())
	}
}

// TestEveryPolicyInTheContract: lab/doc.go names every policy in its
// section "Policies", so the contract says what each decides.
func TestEveryPolicyInTheContract(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(b), "// # Policies\n")
	section, _, _ = strings.Cut(section, "// # ")
	for _, p := range lab.Policies() {
		if !strings.Contains(section, "//   - "+string(p)+":") {
			t.Errorf("lab/doc.go, section Policies: no entry \"  - %s: ...\"", p)
		}
	}
}
