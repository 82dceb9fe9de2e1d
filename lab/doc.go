// Package lab is fencelab's engine: it parses a scenario (an ordered list
// of lease, pause, write and delivery events), replays it under each
// policy and reports, step by step, what each policy decided and
// which invariants broke.
//
// # The contract
//
// The replay model is "model 2", described for users in docs/model.md. In
// short: workers take leases from a lease service, and each grant carries a
// fencing token from the scope's monotonic issuer. Workers pause, lose
// leases, resume and send writes that carry their token. A protected
// resource decides each write. The same timeline is replayed once per
// policy; event order is the only input, so the same scenario always gives
// byte-identical trace JSON.
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
// the least severe: corrupting (stale-overwrite, duplicate-applied: the
// data is wrong), refusing (valid-write-rejected: the valid holder's work
// was refused), deposed (superseded-write, and unowned-write while another
// actor validly holds the scope: a write from a lease already passed to a
// newer grant got in) and overrun (unowned-write while nobody else holds
// the scope: the lease ended before the process stopped, but nothing newer
// was at risk). Summary.Worst gives a policy's most severe class.
//
// Version is stored with every saved run; it is 2.x for model 2, so runs
// saved under model 1 keep their stored trace and show that today's engine
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
// once per policy on a copy of the state each, at a fraction of the cost. A
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
// validity, each worker's pause, crash and latest grant, the leases that
// expired while their worker has not learned so (no check said so, no
// renewal was refused, it neither took the scope again nor crashed), and
// the requests in flight. It is kept out of Replay, so a replay costs what
// it did and the trace is unchanged; the diagram draws its lease bars,
// ghosts and pauses from it.
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
//     restart. unowned-write asks whether the sender validly holds the
//     write's scope when the write lands, so an old request of an actor
//     that holds a newer lease again does not fire it (stale-overwrite and
//     superseded-write do).
//   - valid-write-rejected fires when fenced-strict rejects, or
//     client-check aborts, a write of the scope's current valid holder
//     carrying that lease's token. A second actor carrying the same token
//     after a duplicate grant is not the holder (model 2), so rejecting it
//     fires nothing. A holder whose write carries an explicit token other
//     than its lease's is not "with token t" either.
//   - The class of an unowned-write is decided when the write lands: deposed
//     when an actor other than the writer validly holds the write's scope
//     (whatever its token), else overrun. A write of an actor that holds
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
// Library:
//   - A built-in's one-line lesson is the first sentence of its
//     description. LoadLibrary fails on any invalid file, so a broken
//     built-in stops start-up rather than a page later.
package lab
