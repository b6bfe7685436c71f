package repl

import (
	"context"
	"time"

	"github.com/relaydb/relaydb/internal/failpoint"
	"github.com/relaydb/relaydb/internal/repl/clock"
)

// stopReplProducerPoll is how often a secondary stopped by the
// stopReplProducer fail point looks whether it was turned off.
const stopReplProducerPoll = 20 * time.Millisecond

// waitReplProducer holds a fetched batch unapplied while the
// stopReplProducer fail point is on (mongod's stops its oplog fetcher),
// so writes waiting for this member's acknowledgement time out. It ends
// with ctx (shutdown, a new sync source).
func waitReplProducer(ctx context.Context, clk clock.Sleeper) error {
	for failpoint.StopReplProducer.On() {
		if !sleep(ctx, clk, stopReplProducerPoll) {
			return ctx.Err()
		}
	}
	return nil
}
