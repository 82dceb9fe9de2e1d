// Package issuer judges a token issuer (a lease or lock service) from the
// history its workers recorded: every operation with the times it was sent
// and answered, and the faults injected. The checker trusts nothing but
// that history. The live side (workers, issuers, clusters, faults) is
// package issuer/live; this package has no clock, network or process.
package issuer

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"slices"
)

// Op is one line of the history: an operation of a worker, or a fault of
// the probe's (Worker "nemesis", its name as Op). Sent and Answered are
// seconds since time 0 on the machine's monotonic clock.
type Op struct {
	Worker   string  `json:"worker"`
	Op       string  `json:"op"`
	Target   string  `json:"target,omitempty"`
	Sent     float64 `json:"sent"`
	Answered float64 `json:"answered"`
	Result   string  `json:"result,omitempty"`
	Token    *int64  `json:"token,omitempty"`
	Owner    string  `json:"owner,omitempty"`
	Value    string  `json:"value,omitempty"` // a write's value
	Error    string  `json:"error,omitempty"`
	// Missed marks a pause-holder that stopped nobody.
	Missed bool `json:"missed,omitempty"`
}

// Nemesis is the worker name of the probe's own faults.
const Nemesis = "nemesis"

// CutOff is the error of an operation still in flight at the end.
const CutOff = "cut off at the end"

// GaveUp begins the error of a blocking acquire that stopped waiting:
// it is no failure of the issuer, and no answer either.
const GaveUp = "gave up waiting"

// The operations and results of a history.
const (
	OpSession = "session"
	OpAcquire = "acquire"
	OpRenew   = "renew"
	OpLost    = "lost"
	OpRelease = "release"
	OpWrite   = "write"

	Opened   = "opened"
	Granted  = "granted"
	Refused  = "refused"
	Unknown  = "unknown"
	Renewed  = "renewed"
	Lost     = "lost"
	Released = "released"
	Gone     = "gone"
)

// Faults are the faults the probe can inject, in the contract's order.
var Faults = []string{"pause-holder", "pause-leader", "pause-member", "kill-leader", "kill-member",
	"kill-all", "partition-leader", "partition-member", "failover"}

// IsFault reports whether op is a fault's name.
func IsFault(op string) bool { return slices.Contains(Faults, op) }

// ReadHistory reads a history written one JSON object a line.
func ReadHistory(r io.Reader) ([]Op, error) {
	var ops []Op
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var op Op
		if err := json.Unmarshal(sc.Bytes(), &op); err != nil {
			return nil, fmt.Errorf("history line %d: %w", n, err)
		}
		ops = append(ops, op)
	}
	return ops, sc.Err()
}

// WriteHistory writes ops one JSON object a line, in the order of their
// answers (SortByAnswer first).
func WriteHistory(w io.Writer, ops []Op) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for i := range ops {
		if err := enc.Encode(&ops[i]); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// SortByAnswer orders a history by the answers, as it is written; equal
// answers keep their order.
func SortByAnswer(ops []Op) {
	slices.SortStableFunc(ops, func(a, b Op) int {
		switch {
		case a.Answered < b.Answered:
			return -1
		case a.Answered > b.Answered:
			return 1
		}
		return 0
	})
}
