package lab

// The explorer's state key packs a receiver's applied scopes into one byte
// and what every policy has broken into one uint64. These constants do not
// compile ("overflows") once a limit outgrows its packing: raise the
// packing with the limit.
const (
	// A receiver's applied scopes: one bit per scope in a byte.
	_ = uint8(1<<MaxScopes - 1)
	// What the policies broke: bitsPerPolicy bits per policy in a uint64.
	_ = uint64(1<<(numPolicies*bitsPerPolicy) - 1)
	// Every invariant has its bits in a policy's share.
	_ = uint(bitsPerPolicy - numInvariants)
	// A worker's flags (3 bits), answer (-1, 0 or 1) plus one (2 bits) and
	// scope (3 bits) in a byte.
	_ = uint8((MaxScopes-1)<<5 | (1+1)<<3 | 7)
	// A lease's holder (-1 to MaxActors-1) plus one, above its three flags.
	_ = uint8(MaxActors<<3 | 7)
	// A lease's valid leases, counted in a byte.
	_ = uint8(MaxActors)
	// A request's scope (-1 to MaxScopes-1) plus one, above its four flags.
	_ = uint8(MaxScopes<<4 | 15)
)
