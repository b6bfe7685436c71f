package harness

import (
	"maps"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/anishathalye/porcupine"
)

// History collects the operations of concurrent clients for a porcupine
// check: each with its call and return times since the history began; an
// operation whose outcome is unknown (an error or timeout after which it
// may still have happened) returns at the end of time, as porcupine
// wants. Outcomes are counted by name. Safe for concurrent use.
type History struct {
	start time.Time
	mu    sync.Mutex
	ops   []porcupine.Operation // REQUIRES: mu
	stats map[string]int        // REQUIRES: mu
}

// Outcome is an operation's output as a History records it.
type Outcome interface{ OutcomeUnknown() bool }

// NewHistory starts a history now.
func NewHistory() *History { return &History{start: time.Now(), stats: map[string]int{}} }

// Now is the time since the history began, as porcupine's clock.
func (h *History) Now() int64 { return int64(time.Since(h.start)) }

// Add records an operation called at call that returned now with out.
func (h *History) Add(client int, in any, out Outcome, call int64, outcome string) {
	ret := h.Now()
	if out.OutcomeUnknown() {
		ret = math.MaxInt64
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ops = append(h.ops, porcupine.Operation{ClientId: client, Input: in, Call: call, Output: out, Return: ret})
	h.stats[outcome]++
}

// Count counts an outcome that records no operation.
func (h *History) Count(outcome string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.stats[outcome]++
}

// Ops returns a copy of the operations.
func (h *History) Ops() []porcupine.Operation {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.ops)
}

// Stats returns a copy of the outcome counts.
func (h *History) Stats() map[string]int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return maps.Clone(h.stats)
}

// PartitionByKey is a porcupine Partition putting the operations of each
// key (as key reads an operation's input) in their own history: a model
// of one register per key checks each separately.
func PartitionByKey(key func(input any) int) func([]porcupine.Operation) [][]porcupine.Operation {
	return func(h []porcupine.Operation) [][]porcupine.Operation {
		by := map[int][]porcupine.Operation{}
		for _, op := range h {
			k := key(op.Input)
			by[k] = append(by[k], op)
		}
		out := make([][]porcupine.Operation, 0, len(by))
		for _, ops := range by {
			out = append(out, ops)
		}
		return out
	}
}
