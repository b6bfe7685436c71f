package repl

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/repl/topology"
)

// TestReportNow: a secondary's applied position alone waits for its
// durable one (one replSetUpdatePosition per batch); anything else is
// reported at once.
func TestReportNow(t *testing.T) {
	op := func(i uint32) topology.OpTime { return topology.OpTime{TS: bson.Timestamp{T: 10, I: i}, Term: 1} }
	tests := []struct {
		name    string
		durable topology.OpTime // already fed
		p       *pendingPositions
		want    bool
	}{
		{"applied ahead of durable waits", op(1), &pendingPositions{applied: op(2)}, false},
		{"applied and durable together", op(1), &pendingPositions{applied: op(2), durbl: op(2)}, true},
		{"durable only", op(1), &pendingPositions{durbl: op(2)}, true},
		{"applied already durable", op(3), &pendingPositions{applied: op(2)}, true},
		{"initial sync news", op(1), &pendingPositions{applied: op(2), isDone: true}, true},
		{"source behind", op(1), &pendingPositions{applied: op(2), behind: "h:1"}, true},
		{"nothing new", op(1), &pendingPositions{}, true},
	}
	for _, tt := range tests {
		c := &Coordinator{}
		c.mu.durable = tt.durable
		if got := c.reportNowLocked(tt.p); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
