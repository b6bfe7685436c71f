package repl

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// commandRunner is a Transport that can also run a command on any
// database of a member (*netclient.Pool).
type commandRunner interface {
	Run(ctx context.Context, host, db string, cmd bson.D) (bson.D, error)
}

// RunOnPrimary runs cmd on database db of the member this one knows as
// primary, over the member-to-member connections (authenticated as the
// members are). A secondary uses it to write what an aggregate's $out or
// $merge produces (MongoDB 5.0+ runs such aggregates on secondaries).
// NotWritablePrimary when no primary is known.
func (c *Coordinator) RunOnPrimary(ctx context.Context, db string, cmd bson.D) (bson.D, error) {
	runner, ok := c.opts.Transport.(commandRunner)
	if !ok {
		return nil, fmt.Errorf("repl: the transport cannot run commands")
	}
	primary := ""
	for _, e := range c.HelloFields(false) {
		if e.Key == "primary" {
			primary, _ = e.Value.(string)
		}
	}
	if primary == "" {
		return nil, mongoerr.New(mongoerr.NotWritablePrimary, "no primary is known to run the write on")
	}
	return runner.Run(ctx, primary, db, cmd)
}
