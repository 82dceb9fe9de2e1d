package server

import (
	"context"
	"fmt"
	"math"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"golang.org/x/time/rate"
)

// Limits bounds what one client may add to the store. A client is an
// address as the server tells it (behind a trusted proxy, the forwarded
// one), an IPv6 address counting as its /64, which one machine can fill
// with addresses. Each budget is a token bucket: Burst at once, refilled
// steadily at PerHour. A zero field takes its default; a negative one
// turns that budget off. The defaults let a class of 300 behind one NAT
// address save twice each in the same minute (see docs/operations.md).
type Limits struct {
	Saves            int   // runs saved at once: 600
	SavesPerHour     int   // runs saved per hour after that: 1,800
	SaveBytes        int64 // bytes saved at once (scenario, trace, observation): 32 MiB
	SaveBytesPerHour int64 // bytes saved per hour after that: 32 MiB
	Rooms            int   // live rooms created at once: 30
	RoomsPerHour     int   // live rooms created per hour after that: 30
	Answers          int   // answers to live rooms' questions at once: 900
	AnswersPerHour   int   // answers per hour after that: 6,000
	// JoinMisses are the room codes typed that name no live room at
	// once (a right code costs nothing): 300, a class of 300 behind one
	// address each mistyping once; JoinMissesPerHour after that: 600.
	// They make guessing a live room's code take years.
	JoinMisses        int
	JoinMissesPerHour int
	// SavesAtOnce is how many of one client's saves are served at once;
	// more wait their turn, so that a client with many connections cannot
	// take every core and the writer's queue from the others: 4.
	SavesAtOnce int
	// RefusalDelay is how long a refused client waits for its 429, at
	// most its Retry-After: 1 s; negative: no wait.
	RefusalDelay time.Duration
	// MaxStoreSize is the store's size in bytes past which saves answer
	// 507 and everything else goes on; 0 or less: no limit.
	MaxStoreSize int64
}

// The default budgets of one client; Limits says why.
const (
	defaultSaves             = 600
	defaultSavesPerHour      = 1800
	defaultSaveBytes         = 32 << 20
	defaultSaveBytesPerHour  = 32 << 20
	defaultRooms             = 30
	defaultRoomsPerHour      = 30
	defaultAnswers           = 900
	defaultAnswersPerHour    = 6000
	defaultJoinMisses        = 300
	defaultJoinMissesPerHour = 600
	defaultSavesAtOnce       = 4
	defaultRefusalDelay      = time.Second
)

func (l Limits) withDefaults() Limits {
	pick := func(v *int64, def int64) {
		if *v == 0 {
			*v = def
		}
	}
	pickInt := func(v *int, def int) {
		if *v == 0 {
			*v = def
		}
	}
	pickInt(&l.Saves, defaultSaves)
	pickInt(&l.SavesPerHour, defaultSavesPerHour)
	pick(&l.SaveBytes, defaultSaveBytes)
	pick(&l.SaveBytesPerHour, defaultSaveBytesPerHour)
	pickInt(&l.Rooms, defaultRooms)
	pickInt(&l.RoomsPerHour, defaultRoomsPerHour)
	pickInt(&l.Answers, defaultAnswers)
	pickInt(&l.AnswersPerHour, defaultAnswersPerHour)
	pickInt(&l.JoinMisses, defaultJoinMisses)
	pickInt(&l.JoinMissesPerHour, defaultJoinMissesPerHour)
	pickInt(&l.SavesAtOnce, defaultSavesAtOnce)
	if l.RefusalDelay == 0 {
		l.RefusalDelay = defaultRefusalDelay
	}
	return l
}

// maxClients bounds the clients remembered: past it, after forgetting
// those whose buckets are full again, new clients share one budget, so
// that a flood of addresses costs memory no more than a crowd does.
const maxClients = 100_000

// overflowClient is the key the clients beyond maxClients share.
const overflowClient = "overflow"

// bucket is one budget: a token bucket, or none when the budget is off.
type bucket struct {
	burst   int64
	perHour int64
}

func (b bucket) on() bool { return b.burst > 0 && b.perHour > 0 }

func (b bucket) limiter() *rate.Limiter {
	if !b.on() {
		return nil
	}
	return rate.NewLimiter(rate.Limit(float64(b.perHour)/3600), int(min(b.burst, math.MaxInt32)))
}

// refill is how long an empty bucket takes to be full again.
func (b bucket) refill() time.Duration {
	if !b.on() {
		return 0
	}
	return time.Duration(float64(b.burst) / float64(b.perHour) * float64(time.Hour))
}

// client is one client's buckets; a nil limiter is a budget turned off.
type client struct {
	saves, bytes, rooms *rate.Limiter
	answers, misses     *rate.Limiter
	// reserve is what a network may still add to the store's reserve
	// (see storeSize); nil for a client, or without a size limit.
	reserve *rate.Limiter
	seen    time.Time
	// inFlight holds a token for each of the client's saves being
	// served; the next one waits for a free token (nil: no bound).
	inFlight chan struct{}
	// need is the bytes of the client's last save refused for its byte
	// budget: until the bucket holds that much, the next one is refused
	// before its body is read (a flood repeats its sizes).
	need int
}

// budgets keeps each client's buckets. A client unseen for longer than
// the slowest bucket takes to refill is forgotten: its buckets would be
// full again, just as a new client's.
type budgets struct {
	saves, bytes, rooms bucket
	answers, misses     bucket
	reserve             bucket        // a network's share of the store's reserve; off for clients
	atOnce              int           // saves served at once per client; 0: no bound
	delay               time.Duration // before a refusal is answered
	forget              time.Duration

	mu      sync.Mutex
	clients map[string]*client
	swept   time.Time
}

func newBudgets(l Limits) *budgets {
	b := &budgets{saves: bucket{int64(l.Saves), int64(l.SavesPerHour)},
		bytes: bucket{l.SaveBytes, l.SaveBytesPerHour}, rooms: bucket{int64(l.Rooms), int64(l.RoomsPerHour)},
		answers: bucket{int64(l.Answers), int64(l.AnswersPerHour)},
		misses:  bucket{int64(l.JoinMisses), int64(l.JoinMissesPerHour)},
		clients: map[string]*client{}, atOnce: max(l.SavesAtOnce, 0),
		delay: max(l.RefusalDelay, 0)}
	b.setForget()
	return b
}

func (b *budgets) setForget() {
	b.forget = max(b.saves.refill(), b.bytes.refill(), b.rooms.refill(), b.answers.refill(),
		b.misses.refill(), b.reserve.refill())
}

// networkShare is how many clients' budgets one network gets: the
// clients of one /24 (IPv4) or /48 (IPv6) share, besides each its own
// budget, one network budget this many times as large, so that a flood
// from many addresses of one network gets no more than a few clients
// would. A school's network with several classes at once still fits.
const networkShare = 4

// newNetworkBudgets are the budgets of networks: networkShare times the
// clients', no bound on saves at once (each client has its own), and a
// share of the store's reserve when the store has a size limit.
func newNetworkBudgets(l Limits) *budgets {
	scale := func(n int) int {
		if n <= 0 {
			return n
		}
		return n * networkShare
	}
	l.Saves, l.SavesPerHour, l.Rooms, l.RoomsPerHour = scale(l.Saves), scale(l.SavesPerHour), scale(l.Rooms), scale(l.RoomsPerHour)
	l.Answers, l.AnswersPerHour = scale(l.Answers), scale(l.AnswersPerHour)
	l.JoinMisses, l.JoinMissesPerHour = scale(l.JoinMisses), scale(l.JoinMissesPerHour)
	if l.SaveBytes > 0 {
		l.SaveBytes *= networkShare
	}
	if l.SaveBytesPerHour > 0 {
		l.SaveBytesPerHour *= networkShare
	}
	l.SavesAtOnce = -1
	b := newBudgets(l)
	b.atOnce = 0
	if l.MaxStoreSize > 0 {
		share := max(reserveOf(l.MaxStoreSize)/reserveNetworks, 1)
		b.reserve = bucket{share, share}
	}
	b.setForget()
	return b
}

// clientKey is the budget a request is charged to: its address, or for
// IPv6 the /64 it is in.
func clientKey(c echo.Context) string { return prefixKey(c.RealIP(), 32, 64) }

// networkKey is the network budget a request is charged to as well: the
// /24 of its IPv4 address, the /48 of its IPv6 one.
func networkKey(c echo.Context) string { return prefixKey(c.RealIP(), 24, 48) }

// prefixKey is addr's network of v4 bits (IPv4) or v6 bits (IPv6).
func prefixKey(addr string, v4, v6 int) string {
	ip := net.ParseIP(addr)
	if ip == nil {
		return addr
	}
	if ip4 := ip.To4(); ip4 != nil {
		if v4 == 32 {
			return ip4.String()
		}
		return fmt.Sprintf("%s/%d", ip4.Mask(net.CIDRMask(v4, 32)), v4)
	}
	return fmt.Sprintf("%s/%d", ip.Mask(net.CIDRMask(v6, 128)), v6)
}

// of returns key's buckets, made on first use. Called with b.mu held.
func (b *budgets) of(key string, now time.Time) *client {
	if cl, ok := b.clients[key]; ok {
		cl.seen = now
		return cl
	}
	if len(b.clients) >= maxClients || now.Sub(b.swept) > time.Minute {
		b.sweep(now)
	}
	if len(b.clients) >= maxClients {
		key = overflowClient
		if cl, ok := b.clients[key]; ok {
			cl.seen = now
			return cl
		}
	}
	cl := &client{saves: b.saves.limiter(), bytes: b.bytes.limiter(), rooms: b.rooms.limiter(),
		answers: b.answers.limiter(), misses: b.misses.limiter(), reserve: b.reserve.limiter(), seen: now}
	if b.atOnce > 0 {
		cl.inFlight = make(chan struct{}, b.atOnce)
	}
	b.clients[key] = cl
	return cl
}

// sweep forgets the clients whose buckets are full again.
func (b *budgets) sweep(now time.Time) {
	b.swept = now
	for k, cl := range b.clients {
		if now.Sub(cl.seen) > b.forget {
			delete(b.clients, k)
		}
	}
}

// refusal is a request over a budget: which one, and when to retry.
type refusal struct {
	limit string // "saves", "bytes" or "rooms", the metric's label
	err   *echo.HTTPError
	retry time.Duration
}

func (r *refusal) Error() string { return r.err.Error() }
func (r *refusal) Unwrap() error { return r.err }

// takeSave charges key one save of n bytes, or says which budget it is
// over. undo gives the tokens back, for a save that then failed.
func (b *budgets) takeSave(key string, n int) (undo func(), err *refusal) {
	now := time.Now()
	b.mu.Lock()
	defer b.mu.Unlock()
	cl := b.of(key, now)
	saves, err := take(cl.saves, now, 1, b.overSaves)
	if err != nil {
		return nil, err
	}
	bytes, err := take(cl.bytes, now, n, b.overBytes)
	if err != nil {
		saves.cancel()
		cl.need = n
		return nil, err
	}
	cl.need = 0
	return func() { saves.cancel(); bytes.cancel() }, nil
}

// turn waits until fewer than atOnce of key's saves are being served, and
// returns what ends this one's turn; ctx's error if it ends first.
func (b *budgets) turn(ctx context.Context, key string) (func(), error) {
	b.mu.Lock()
	slots := b.of(key, time.Now()).inFlight
	b.mu.Unlock()
	if slots == nil {
		return func() {}, nil
	}
	select {
	case slots <- struct{}{}:
		return func() { <-slots }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// spent refuses a save at once when key has no save or no byte left, so
// that a client past its budget does not make the server replay its
// scenario only to be refused.
func (b *budgets) spent(key string) *refusal {
	now := time.Now()
	b.mu.Lock()
	defer b.mu.Unlock()
	cl := b.of(key, now)
	if wait := until(cl.saves, now, 1); wait > 0 {
		return b.overSaves(wait)
	}
	if wait := until(cl.bytes, now, max(cl.need, 1)); wait > 0 {
		return b.overBytes(wait)
	}
	return nil
}

// until is how long until l holds n tokens (at most its burst); 0 when
// it does now or is off.
func until(l *rate.Limiter, now time.Time, n int) time.Duration {
	if l == nil {
		return 0
	}
	missing := float64(min(n, l.Burst())) - l.TokensAt(now)
	if missing <= 0 {
		return 0
	}
	return time.Duration(missing / float64(l.Limit()) * float64(time.Second))
}

func (b *budgets) overSaves(wait time.Duration) *refusal {
	return over("saves", wait, "This address has saved too many runs: its budget is %d runs at once, then %d "+
		"an hour. Nothing was saved; try again in %s.",
		b.saves.burst, b.saves.perHour, waitWords(wait))
}

func (b *budgets) overBytes(wait time.Duration) *refusal {
	return over("bytes", wait, "This address has saved too many bytes: its budget is %s at once, then %s an "+
		"hour. Nothing was saved; try again in %s.",
		byteWords(b.bytes.burst), byteWords(b.bytes.perHour), waitWords(wait))
}

// takeRoom charges key one new live room.
func (b *budgets) takeRoom(key string) (undo func(), err *refusal) {
	now := time.Now()
	b.mu.Lock()
	defer b.mu.Unlock()
	r, err := take(b.of(key, now).rooms, now, 1, func(wait time.Duration) *refusal {
		return over("rooms", wait, "This address has started too many live rooms: its budget is %d rooms at "+
			"once, then %d an hour. Try again in %s.",
			b.rooms.burst, b.rooms.perHour, waitWords(wait))
	})
	if err != nil {
		return nil, err
	}
	return r.cancel, nil
}

// takeAnswer charges key one answer to a live room's question.
func (b *budgets) takeAnswer(key string) *refusal {
	now := time.Now()
	b.mu.Lock()
	defer b.mu.Unlock()
	_, err := take(b.of(key, now).answers, now, 1, func(wait time.Duration) *refusal {
		return over("answers", wait, "This address has sent too many answers: its budget is %d answers at "+
			"once, then %d an hour. Try again in %s.",
			b.answers.burst, b.answers.perHour, waitWords(wait))
	})
	return err
}

// joinSpent refuses at once a client with no wrong room code left.
func (b *budgets) joinSpent(key string) *refusal {
	now := time.Now()
	b.mu.Lock()
	defer b.mu.Unlock()
	if wait := until(b.of(key, now).misses, now, 1); wait > 0 {
		return b.overMisses(wait)
	}
	return nil
}

// takeMiss charges key one room code that named no live room.
func (b *budgets) takeMiss(key string) {
	now := time.Now()
	b.mu.Lock()
	defer b.mu.Unlock()
	take(b.of(key, now).misses, now, 1, b.overMisses)
}

func (b *budgets) overMisses(wait time.Duration) *refusal {
	return over("join", wait, "This address has typed too many codes that name no live room or hand-over: its budget "+
		"is %d at once, then %d an hour. Check the code on the presenter’s screen and try again in %s.",
		b.misses.burst, b.misses.perHour, waitWords(wait))
}

// takeReserve charges key's network n bytes of the store's reserve.
func (b *budgets) takeReserve(key string, n int) (undo func(), ok bool) {
	now := time.Now()
	b.mu.Lock()
	defer b.mu.Unlock()
	cl := b.of(key, now)
	if cl.reserve == nil {
		return func() {}, true
	}
	r, err := take(cl.reserve, now, n, func(time.Duration) *refusal { return &refusal{} })
	if err != nil {
		return nil, false
	}
	return r.cancel, true
}

// reservation is tokens taken from a bucket, or none.
type reservation struct{ r *rate.Reservation }

func (r reservation) cancel() {
	if r.r != nil {
		r.r.Cancel()
	}
}

// take takes n tokens from l now, or refuses with refuse(how long until
// they are there). A request larger than the whole bucket costs the whole
// bucket, so that it passes when the client has spent nothing for a while.
func take(l *rate.Limiter, now time.Time, n int, refuse func(time.Duration) *refusal) (reservation, *refusal) {
	if l == nil {
		return reservation{}, nil
	}
	r := l.ReserveN(now, min(n, l.Burst()))
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return reservation{}, refuse(d)
	}
	return reservation{r}, nil
}

func over(limit string, wait time.Duration, format string, args ...any) *refusal {
	return &refusal{limit: limit, retry: wait,
		err: echo.NewHTTPError(http.StatusTooManyRequests, fmt.Sprintf(format, args...))}
}

// retryAfter sets the seconds a refused client should wait.
func (r *refusal) retryAfter(c echo.Context) {
	c.Response().Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(r.retry.Seconds()))))
}

// waitWords says a wait to a person: "3 s", "2 min".
func waitWords(d time.Duration) string {
	if s := int(math.Ceil(d.Seconds())); s < 120 {
		return fmt.Sprintf("%d s", s)
	}
	return fmt.Sprintf("%d min", int(math.Ceil(d.Minutes())))
}

// byteWords says a size to a person in binary units.
func byteWords(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20:
		return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.0f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
