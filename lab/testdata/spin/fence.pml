/*
 * fence.pml: N workers that each acquire a lease, have it expire, send a
 * write and have it delivered, against one fencing resource, replayed
 * under fencelab's eight policies at once. It is the Promela twin of the
 * scenario .ci/spin generates for fencelab's explorer (one scope "job",
 * first token 1; one durable resource "result" with fencing on; per worker
 * Wi: acquire, expire, send wi, deliver wi), so the two checkers walk the
 * same states and .ci/spin can compare their speed and memory.
 *
 * How the two correspond:
 *  - One fencelab event is one d_step here, so SPIN stores a state after
 *    each event, as fencelab does, and none in between.
 *  - fencelab orders a worker's events by a partial order: acquire first,
 *    then expire (free under model 2) and send in either order, deliver
 *    after send. Built with -DPROGRAM, expire comes before send, as
 *    fencelab's --expiry program has it. Here each worker is a loop over flags e, s, d (events
 *    run) whose guards are that partial order; the loop's head is one
 *    program counter, so a worker's control state is exactly fencelab's
 *    "events run" bitset, and a worker that has run everything blocks at
 *    a valid end state rather than adding a terminated-process state.
 *  - The lease (valid, holder, current token, next token, highest token
 *    granted), each worker's grant and each request's token are the same
 *    variables fencelab's state key holds. Token 0 stands for "none": the
 *    issuer starts at 1.
 *  - Per policy p (fencelab's order: unfenced, client-check, fenced,
 *    fenced-strict, fenced-idempotent, fenced-register, authoritative,
 *    fenced-racy): rem[p] is the token the receiver remembers, hi[p] the
 *    highest token applied (the observer's record), viol[p] the invariants
 *    broken so far (the same six bits as fencelab's state: stale,
 *    superseded, duplicate, rejected, unowned deposed, unowned overrun),
 *    and aborted the sends client-check's workers aborted.
 *
 * Where they differ:
 *  - fencelab explores any scenario with every policy's rules in one run;
 *    this model is written for one scenario shape. Its rules are only
 *    those the shape can reach: no op keys (fenced-idempotent acts as
 *    fenced), no commits (fenced-racy acts as fenced), no check or renew
 *    (a worker checks at its send), no restarts, one scope.
 *  - fencelab also counts, per state, the orderings that reach each
 *    invariant and class, and keeps a counterexample per policy and class;
 *    SPIN only visits the states. fencelab's figure includes that work.
 *  - fencelab's state is a compact byte key; SPIN's is its state vector
 *    (the variables below plus its process headers), stored whole.
 */
#ifndef N
#define N 4
#endif
#define NP 8

#define UNFENCED 0
#define CLIENT   1
#define STRICT   3
#define REGISTER 5
#define AUTH     6

#define STALE      1
#define SUPERSEDED 2
#define REJECTED   8
#define DEPOSED    16
#define OVERRUN    32

bool valid, granted;
byte holder, cur, maxg;
byte next = 1;
byte wtok[N];     /* the token of the worker's grant, 0: none */
byte qtok[N];     /* the token its request carries, 0: none */
unsigned aborted : N;
byte rem[NP];     /* the token the receiver remembers, 0: none */
byte hi[NP];      /* the highest token applied, 0: none */
byte viol[NP];

#define holds(w) (valid && holder == w)

#ifdef PROGRAM
#define SEND_READY (e && !s)
#else
#define SEND_READY (!s)
#endif

/* apply lands worker w's request at policy p's receiver. */
inline apply(p, w) {
	if
	:: qtok[w] != 0 && hi[p] > qtok[w] -> viol[p] = viol[p] | STALE
	:: else
	fi;
	if
	:: qtok[w] != 0 && granted && maxg > qtok[w] -> viol[p] = viol[p] | SUPERSEDED
	:: else
	fi;
	if
	:: holds(w) -> skip
	:: valid -> viol[p] = viol[p] | DEPOSED
	:: else -> viol[p] = viol[p] | OVERRUN
	fi;
	if
	:: qtok[w] > hi[p] -> hi[p] = qtok[w]
	:: else
	fi
}

/* reject refuses worker w's request at policy p's receiver. */
inline reject(p, w) {
	if
	:: qtok[w] != 0 && holds(w) && cur == qtok[w] -> viol[p] = viol[p] | REJECTED
	:: else
	fi
}

/* fenced is the token check of the fenced family; strict rejects equal tokens too. */
inline fenced(p, w, strict) {
	if
	:: qtok[w] == 0 || (rem[p] != 0 && (qtok[w] < rem[p] || (strict && qtok[w] == rem[p]))) -> reject(p, w)
	:: else -> apply(p, w); rem[p] = qtok[w]
	fi
}

inline deliver(w) {
	apply(UNFENCED, w);
	if
	:: aborted & (1 << w) -> skip
	:: else -> apply(CLIENT, w)
	fi;
	fenced(2, w, 0);
	fenced(STRICT, w, 1);
	fenced(4, w, 0);
	fenced(REGISTER, w, 0);
	if
	:: qtok[w] == 0 -> reject(AUTH, w)
	:: valid && cur == qtok[w] -> apply(AUTH, w)
	:: else
	fi;
	fenced(7, w, 0)
}

active [N] proctype W() {
	bool e, s, d;
	d_step {
		if
		:: valid -> skip /* refused: the lease is taken */
		:: else ->
			holder = _pid; cur = next; next++; valid = 1; granted = 1;
			if :: cur > maxg -> maxg = cur :: else fi;
			wtok[_pid] = cur;
			if :: rem[REGISTER] < cur -> rem[REGISTER] = cur :: else fi
		fi
	};
end:
	do
	:: d_step { !e -> e = 1; if :: holds(_pid) -> valid = 0 :: else fi }
	:: d_step { SEND_READY -> s = 1; qtok[_pid] = wtok[_pid];
		if :: !(holds(_pid) && cur == wtok[_pid]) -> aborted = aborted | (1 << _pid) :: else fi }
	:: d_step { s && !d -> d = 1; deliver(_pid) }
	od
}
