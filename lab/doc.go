// Package lab is fencelab's engine: it parses a scenario (an ordered list
// of lease, pause, read, write and delivery events), replays it under each
// policy and reports, step by step, what each policy decided and
// which invariants broke.
//
// Everything the engine is sits in this one package, so that go doc
// answers for every name: the scenario format and its validation (parse.go,
// validate.go, event.go), replay (replay.go, lane.go, policy.go), the
// invariants and classes (invariant.go, class.go), the explorer
// (explore*.go) and the trace with its JSON (trace.go, trace_json.go).
// lab imports only the standard library, and neither reads the clock nor
// starts a goroutine (docs/code.md).
//
// # The contract
//
// The replay model is "model 3", described for users in docs/model.md. In
// short: workers take leases from a lease service, and each grant carries a
// fencing token from the scope's monotonic issuer. Workers pause, lose
// leases, resume and send writes that carry their token. A protected
// resource decides each write. The same timeline is replayed once per
// policy; event order is the only input, so the same scenario always gives
// byte-identical trace JSON.
//
// Model 3 adds what lease services and receivers do besides fencing:
//   - A split acquire ("split": true) is granted although another actor
//     validly holds the scope (split brain); it is refused only when the
//     actor itself validly holds it. A scope then has several valid leases,
//     kept in grant order, and its current holder is the actor of the
//     latest-granted of them. valid-write-rejected, unowned-write and their
//     classes ask about the current holder; the lease service (acquire,
//     renew, check, the client check, expire, release, authoritative) sees
//     every valid lease.
//   - A scope with "remember": "memory" forgets its leases and its counter
//     at a restart of the scope ({"kind": "restart", "scope": ...}): the
//     leases are no longer valid, their holders are not told, and the
//     issuer starts again at first_token. The observer's record (the
//     greatest token granted) is kept.
//   - A resource with "keys": "memory" forgets the op keys it applied when
//     it restarts, so fenced-idempotent applies a retry again; with
//     "tokens": "per-scope" it remembers a token per scope, and the fenced
//     family compares a write with its own scope's token.
//   - A write, send or check may name its scope. A write's scope is the one
//     it names, else its actor's latest grant's, else the only one; its
//     default token is the actor's latest grant of that scope. A write that
//     names its scope goes, under client-check, by the latest check or
//     renew of that scope since the actor's latest grant of it.
//   - A read may name its resource. An "rmw" write is computed from what
//     its actor read; each resource counts the writes it applied (its
//     version), and a request is stale when another actor's write was
//     applied there since its actor's latest read (or since the start).
//     The ninth policy, cas, rejects a stale rmw write and applies every
//     other one; the sixth invariant, lost-update (corrupting), fires when
//     a stale rmw write is applied. Refusing a stale rmw write is no
//     valid-write-rejected. Versions appear in a trace ("versions" per
//     outcome) only when the scenario has an rmw write.
//
// A file that uses none of this replays exactly as under model 2 for the
// eight policies of model 2, and cas decides there as unfenced does.
//
// Parse reads a scenario strictly: unknown fields, unknown kinds, missing
// fields, undeclared scopes or resources, duplicate send ids and the limits
// (500 events, 16 actors, 8 scopes, 8 resources, text lengths) are
// validation errors that name the event index and the field, all reported
// together. Replay never fails on a valid scenario: an event that cannot
// happen at its place is skipped with a warning; refusals and rejections
// are outcomes, not errors.
//
// Every violation has a class, which says how bad it is, from the most to
// the least severe: corrupting (stale-overwrite, duplicate-applied,
// lost-update: the data is wrong), refusing (valid-write-rejected: the
// current holder's work was refused), deposed (superseded-write, and
// unowned-write while another actor is the current holder: a write from a
// lease already passed to a newer grant got in) and overrun (unowned-write
// while the scope has no current holder: the lease ended before the
// process stopped, but nothing newer was at risk). Summary.Worst gives a
// policy's most severe class.
//
// Version is stored with every saved run; it is 3.x for model 3, so runs
// saved under model 2 keep their stored trace and show that today's engine
// would say something else.
//
// # Policies
//
// A policy is one row of rules (policy.go); code elsewhere asks its facets
// (Policy.ChecksToken, Policy.Strict, ...), never its name. In the order
// of Policies:
//
//   - unfenced: the resource applies every write; nobody checks.
//   - client-check: the worker checks its lease before sending and aborts
//     the send when it is not valid; the resource applies what arrives.
//   - fenced: the resource applies a token at least as high as the highest
//     it remembers.
//   - fenced-strict: as fenced, but an equal token is rejected too.
//   - fenced-idempotent: as fenced; a write whose op key was already
//     applied is suppressed.
//   - fenced-register: as fenced; a grant registers its token at every
//     fencing resource at once.
//   - authoritative: the resource asks the lease service whether the token
//     is the current lease.
//   - fenced-racy: as fenced, but a checked request is written only at its
//     commit, when one follows.
//   - cas: (model 3) the resource applies an rmw write only when nothing
//     landed since its writer read; any other write states no condition and
//     is applied, so without rmw writes cas decides as unfenced.
//
// Unfenced and fenced are the default comparison (DefaultPolicies).
//
// # How the replay is organised
//
// The lease service and the workers behave the same under every policy
// (nothing a receiver decides flows back to them), so they are kept once.
// What the policies disagree on (each receiver's value, remembered token,
// applied operations, and which requests were aborted or await a commit)
// lives on one lane per policy. This is the same as replaying the timeline
// once per policy on a copy of the state each, at a fraction of the cost. What a
// worker read and whether a write landed since is per lane too: reads
// happen at the same steps under every policy, but which writes were
// applied differs. A
// lane's value maps are replaced, not modified, when a write lands, so the
// outcomes of the steps share them and nothing is copied per step.
//
// Explore replays decisions only: the same code decides, but builds no
// reason, warning, value snapshot or filled-in event, which nothing in an
// exploration reads. A test replays built-ins and random scenarios both
// ways and wants the same decisions, violations and final state.
//
// States replays a scenario once more and returns, after each step, what a
// picture needs from that shared part: each scope's holder, token and
// validity, every valid lease of each scope in grant order (two after a
// split grant) and the leases a restart of a memory scope forgot at that
// step, each worker's pause, crash and latest grant, the leases that
// expired or were forgotten while their worker has not learned so (no
// check said so, no renewal was refused, it neither took the scope again
// nor crashed), and the requests in flight. It is kept out of Replay, so a replay costs what
// it did and the trace is unchanged; the diagram draws its lease bars,
// ghosts and pauses from it. RMWFreshness reads from a trace, under one
// policy, what each rmw request knew of its resource when it was decided
// (stale or not, the version its writer knew, the version then), so the
// diagram can say "stale: read v0, now v1" by the replay's rule.
//
// # Choices where the spec is silent
//
// Parsing and validation:
//   - FieldError.Index is the event's step number, counted from 1 as in
//     the trace; 0 means the scenario itself (title, scopes, ...). The CLI
//     prints both forms: "event 3 (events[2]) token: ...".
//   - A field that exists but that the event's kind does not take (a value
//     on an acquire, an actor on a deliver) is an error, not ignored:
//     silently ignoring it would hide a typo in the timeline.
//   - deliver, commit and restart take no actor: the network and the
//     receiver act, and the sender of a request is known from its send.
//   - "token": null on a write or send is a worker that sends no token (the
//     write then carries null, whatever the actor's grant); on an acquire it
//     means the issuer's next token, as if absent.
//   - Tokens are JSON integers that fit 64 bits; 4.0 and 4e1 are rejected.
//     The issuer continues after a granted token with t+1, which wraps
//     from the largest 64-bit integer to the smallest, as a wrapped counter
//     would.
//   - A blank title, and "scopes": {} or "resources": {} (declaring
//     nothing), are errors. An empty events list is valid: a blank lab.
//   - Text (title, description, notes, values) may not hold control
//     characters: C0, DEL and C1 are refused, naming the field, except line
//     breaks and tabs in a description or note. They would act on the
//     terminal of whoever prints an export, or break its lines. Names
//     (actors, scopes, resources, ids) take only A-Z a-z 0-9 _ - anyway.
//     Text that is not valid UTF-8 is refused too, rather than having its
//     bytes turned into U+FFFD as encoding/json would: what is saved is
//     what was sent.
//   - Over 500 events is reported once, without examining the events. At
//     most 100 errors are listed, then a count of the rest. A key repeated
//     in one JSON object keeps its last value, as encoding/json does.
//   - The editor's draft (lab/draft) reaches the engine as scenario JSON
//     parsed by Parse, not as a Scenario built field by field. The round
//     trip is the validation kept on purpose: a draft holds what the
//     reader typed ("41x" for a token, a name with a space), and going
//     through Parse gives it exactly the errors, words and limits a file
//     gets, placed on the card that holds the field, with no second
//     validator to drift from the first. It costs a few milliseconds for
//     a 500-event draft (BenchmarkCompile500 in lab/draft).
//
// Replay:
//   - A skipped step changes nothing, but a write or send still carries
//     its token: a skipped one shows, in "token" and in its event, the
//     scope and token it would have carried. A skipped deliver or commit
//     shows its request's token once the request was sent, else null. A
//     skipped acquire grants nothing: null.
//   - A deliver of a send that was itself skipped is skipped too ("not
//     sent yet"): the request never left.
//   - A refused acquire's "token" is null (nothing was granted); a renew's
//     is null too (it grants no new token). A granted acquire's token is
//     in the step's "token"; its event keeps "token" only when the file
//     named one, so a broken issuer's explicit token stays visible.
//   - A write's request gets the id "#N", N its step number, in the
//     trace's event. "#" is not allowed in a send's id, so the two never
//     collide.
//   - A deliver's event in the trace is as written (its request); the
//     actor, scope and token of the request are those shown at its send.
//   - Client check: the answer a check or renew gives is remembered until
//     the actor's next grant. A write or send with no such answer checks at
//     that moment, and that implicit check is not remembered: the next
//     write checks again. A check with no grant answers "not valid".
//   - fenced-racy: a deliver that passes the check is "checked" only when a
//     commit naming the request comes later in the timeline; with no such
//     commit the receiver writes at once, like fenced. A commit under any
//     other policy, or of a request that was rejected at its deliver, is
//     "ok" and changes nothing.
//   - fenced-register raises the remembered token to the granted one and
//     never lowers it (a wrapped or duplicated token registers nothing
//     new); receivers with fencing false register nothing.
//   - A restart of a "memory" receiver forgets only the remembered token,
//     as the spec says: its value, its applied operation keys (for
//     fenced-idempotent) and any request awaiting a commit survive. A
//     durable receiver forgets nothing.
//   - The invariants judge from the observer's record, not the receiver's
//     memory: stale-overwrite still knows the tokens applied before a
//     restart. unowned-write asks whether the sender is the current holder
//     of the write's scope when the write lands, so an old request of an
//     actor that holds a newer lease again does not fire it
//     (stale-overwrite and superseded-write do).
//   - valid-write-rejected fires when fenced-strict rejects, or
//     client-check aborts, a write of the scope's current valid holder
//     carrying that lease's token. A second actor carrying the same token
//     after a duplicate grant is not the holder (model 2), so rejecting it
//     fires nothing. A holder whose write carries an explicit token other
//     than its lease's is not "with token t" either.
//   - The class of an unowned-write is decided when the write lands: deposed
//     when an actor other than the writer is the current holder of the
//     write's scope (whatever its token), else overrun. A write of an actor that holds
//     the scope again under a newer grant is not unowned (above), so its
//     harm shows as superseded-write (deposed) or stale-overwrite
//     (corrupting). A write with no scope is always an overrun.
//   - A trace stored before classes existed reads back with an empty
//     class; Summary.Worst and Class.Severity ignore it (severity 0).
//   - authoritative rejects a write that belongs to no scope (an actor
//     with no grant, with several scopes declared). Such a write can fire
//     only duplicate-applied and unowned-write: stale-overwrite,
//     superseded-write and valid-write-rejected are about a scope.
//   - fenced-register at a "memory" receiver: a restart forgets the
//     registered token too. The spec's "remembers at least that token from
//     then on" meets its rule that such a receiver forgets what it
//     remembers; the more specific rule, the receiver's memory, wins.
//   - Violations are listed in step order; within a step in the spec's
//     order of invariants. Outcomes are written in the order of Policies;
//     "summary" is a JSON object whose keys encoding/json sorts.
//   - Every declared resource appears in "values" and "tokens" at every
//     step, null until written.
//
// Exploring orderings (Explore, model 2):
//   - The explored events: with writes split (the default) each write at
//     place N of the file becomes "send #N" (actor, value, resource, op,
//     token and note copied) followed by "deliver #N" (no note), in
//     Exploration.Events; Counterexample.Order indexes those, from 1. The
//     client check of client-check happens at the send. With writes
//     atomic the explored events are the file's.
//   - An ordering keeps each actor's events in file order, except an
//     expire under expiry free (the default): it runs after the acquire of
//     the same actor and scope that precedes it in the file and before the
//     one that follows it, and is otherwise free; the actor's other events
//     are chained past it. An expire with no such acquire before it is
//     bounded on that side by nothing (wherever the actor does not validly
//     hold the lease, it is skipped, as in a replay). With
//     expiry program an expire keeps its place in its actor's program. A
//     deliver comes after the send it names; a commit after every deliver
//     of its request (with no deliver it is free, and always skipped); each
//     resource's restarts keep their order. Nothing else constrains
//     deliver, commit and restart.
//   - Orderings are sequences of explored-event indices: two alike events
//     swapped are two orderings. Each ordering replays exactly as Replay
//     would replay the explored events in that order, skips included.
//   - Counts are, per policy: per invariant, the orderings that break it at
//     least once; per class, the orderings whose most severe violation is
//     of that class (by_class, all four keys, zeros included). Worst is
//     the most severe class any ordering reached, null when none.
//   - The counterexample reaches the policy's worst class: of the
//     orderings that do, the one whose first violation of that class comes
//     at the earliest step, then the least as a list of explored-event
//     indices. Its Step is that violation's step, its Invariant the first
//     of that class broken there in the order of Invariants, its Class the
//     worst class.
//   - Exploration.Reorder turns a counterexample into a scenario that can
//     be edited and saved. "#" is not allowed in a send id (so that a
//     write's "#N" never collides with one), so the sends split from
//     writes are renamed "write-N" in the send and its deliver, or
//     "write-N-2", "write-N-3", ... when a send of the file already has
//     that id. The saved scenario then replays the ordering step for step.
//   - The writes and expiry switches accept "" as the default; any other
//     value than split/atomic and free/program is an error at the CLI and
//     the API (ParseWrites, ParseExpiry), never silently the default.
//   - Merged states hold what can change a later decision or violation:
//     leases, workers, requests, each lane's receivers (remembered token,
//     highest applied token per scope, applied op keys), aborted and
//     pending requests, and what each policy has broken so far, with
//     unowned-write split by class. Values and reason texts are left out:
//     no decision reads them.
//   - Policies whose rules differ only in what the scenario never uses
//     decide alike on every ordering: fenced-idempotent and fenced without
//     op keys, fenced-racy and fenced without commits, cas and unfenced
//     without rmw writes. The explorer runs one lane for such a group and
//     gives each of its policies the same counts and counterexamples
//     (what a replay shows is unchanged: it runs every policy).
//   - Explore walks the states layer by layer (all states after one
//     event, then after two, ...), so when the budget or the context stops
//     a run, Complete is false and no ordering has been followed to its
//     end yet: the counts are zero (unless it stopped in the last layer).
//     Worst and the counterexample are the most severe class met and the
//     earliest ordering met that reaches it: an exploration cut short
//     still shows the shortest violations of each class there are.
//   - A budget-stopped exploration keeps the states a one-core walk of
//     the layers in rank order would have kept, so its result, like every
//     result, is the same whatever the number of workers.
//
// Model 3 (where its spec is silent or allowed two readings):
//   - A restart with neither resource nor scope is an error on "resource"
//     (the field a model-2 restart needed); with both, on "scope". split
//     on anything but an acquire and rmw on anything but a write or send
//     are errors on that field whatever their value, as any field a kind
//     does not take; a split or rmw that is not true or false (null
//     included) is an error on that field. A bad remember, keys or tokens
//     value is an error on "scopes.S.remember", "resources.R.keys" or
//     "resources.R.tokens".
//   - Scope.Remember, Resource.Keys and Resource.Tokens stay empty when the
//     file leaves them out (the defaults: durable, durable, shared), and
//     Event.Split and Event.RMW nil, so a model-2 scenario marshals as it
//     did. A split or rmw written false is kept as written in the trace's
//     event; it means the same as leaving it out.
//   - The current holder is the latest-granted of the valid leases: when a
//     split lease ends first, the earlier holder is current again.
//   - A split acquire of a free scope is a plain grant: its reason names no
//     split brain. A plain acquire refused while the actor holds the scope
//     says so with its own token; otherwise the refusal names the current
//     holder. A split grant's reason lists every lease still valid:
//     "B holds job with token 42; A's lease (41) is still valid: split
//     brain".
//   - authoritative accepts a token equal to any valid lease's of the
//     write's scope (either side of a split brain); its reason says which.
//   - expire and release end the actor's own valid lease, whichever place
//     it has among the scope's valid leases. A renew is granted when the
//     actor holds a valid lease of the scope, split or not.
//   - A restart of a durable scope changes nothing (its reason says so). A
//     restart of a memory scope forgets every lease, even those granted
//     with an explicit token, and restarts the issuer at first_token; the
//     greatest token granted is kept for superseded-write.
//   - A check without a scope, by an actor with no grant, answers "not
//     valid" about no scope; its answer counts for later writes that name
//     no scope only. A check or renew of a scope counts for the per-scope
//     rule whether it names the scope or defaults to it; a grant of a scope
//     clears the answer kept for that scope (and, as in model 2, the
//     answer kept for writes that name no scope).
//   - A write that names a scope the actor was never granted carries no
//     token by default (an explicit token still counts).
//   - A read of every resource (none named) makes the actor fresh at each.
//     Staleness is kept per policy: what a policy rejected never landed.
//     A request takes its actor's staleness when sent, and a write applied
//     while it is in flight, or checked and waiting for its commit under
//     fenced-racy, by another actor makes it stale. A write whose actor
//     never read the resource is stale once another actor's write landed
//     there since the start.
//   - cas applies every write that is not an rmw ("the write states no
//     condition"), and every write at a resource with fencing false. Its
//     reasons name the version its writer last knew (the one it read, or
//     the one its own latest write there produced) and the version now:
//     "rejected: B's
//     write landed after A read balance (version 0, now 1)"; for a worker
//     that never read, "... landed at balance, which A never read (now
//     version 1)". Tokens and op keys play no part in it.
//   - valid-write-rejected is off for a stale rmw write under every
//     policy, client-check's abort included (staleness as at the send).
//   - A read's reason in a scenario with an rmw write ends each resource
//     with its version: "A reads balance = balance 7 (token 42), version 1".
//   - A per-scope receiver rejects a write that belongs to no scope before
//     comparing anything (a write with no token is rejected for that
//     first). The racy commit and fenced-register set only the write's or
//     grant's own scope; fenced-register raises it, never lowers it.
//     Rejection reasons at a per-scope receiver end with the scope: "41 <
//     42 already accepted for orders".
//   - A keys-memory receiver forgets its op keys at every restart of the
//     resource, whatever its remember; only fenced-idempotent's reason
//     mentions it. The observer's record of applied op keys is kept.
//   - Versions count the writes each policy applied to each resource,
//     across restarts, and appear in every outcome of a scenario with an
//     rmw write, every declared resource included.
//   - The probe (lab/probe) keeps model 2's receiver contract: it expects
//     one remembered token and durable op keys, and says so when a
//     scenario declares otherwise.
//
// Exploring orderings (model 3):
//   - The restarts of one scope keep their order, as those of one resource
//     do; a scope's restarts and a resource's are not ordered together.
//   - The merged state adds the valid leases of each scope in grant order
//     (one flag when they are only the latest grant, as without split),
//     each worker's latest grant and answer per scope (only with several
//     scopes: with one they are its latest grant and answer), each
//     per-scope receiver's tokens, the op keys of a keys-memory receiver
//     apart from the observer's, and per policy the stale flag of each
//     actor and resource and of each rmw send (only in a scenario with an
//     rmw write). Versions, the version read and whose write made a worker
//     stale are for reasons only and stay out.
//
// Exploring a given order (ExploreOptions.After, for imported logs):
//   - An import knows the order of its events only as far as the clocks
//     of the hosts that logged them allow, not from actors' programs. With
//     After set, that order is the whole partial order: After[i] lists the
//     1-based indices of the events that run before event i+1. Only
//     entries naming an earlier event count, so the given order has no
//     cycle. The model still puts a deliver after its send and a commit
//     after its delivers; actors' programs, free expiry and split writes
//     do not apply (the logs say what happened), so the exploration
//     reports writes atomic and expiry program. Budgets, classes and
//     counterexamples are as for any exploration.
//
// Library:
//   - A built-in's one-line lesson is the first sentence of its
//     description. LoadLibrary fails on any invalid file, so a broken
//     built-in stops start-up rather than a page later.
//   - The five teaching scenarios of model 3 replay the appendix's events
//     as given; their words are written as lessons like the others', and
//     they stay at the end of the teaching order.
//   - Threads groups the built-ins for the front page (pauses and checks,
//     the network, the receiver, the lease service, data freshness); each
//     built-in is in exactly one, and each thread keeps the teaching order.
package lab
