package command

import (
	"context"
	"errors"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// RangeDeletions is what a shard's ShardVersioner also offers when it
// runs a range deleter (shardsvr.WithRanges).
type RangeDeletions interface {
	ScheduleRangeDeletion(ctx context.Context, ns string, lo, hi bson.D, when string) (bson.Binary, error)
	WaitRangeDeletions(ctx context.Context, ns string) error
}

func rangeDeletions(c *Ctx, cmd string) (RangeDeletions, error) {
	r, ok := c.D.shardVersioner.(RangeDeletions)
	if !ok {
		return nil, mongoerr.New(mongoerr.ShardingStateNotInitialized, "%s needs a shard (--shardsvr)", cmd)
	}
	return r, nil
}

func checkNS(ns string) error {
	db, coll, ok := strings.Cut(ns, ".")
	if !ok || db == "" || coll == "" {
		return mongoerr.New(mongoerr.InvalidNamespace, "Invalid namespace specified '%s'", ns)
	}
	return nil
}

// cleanupOrphaned waits until the namespace has no range deletion task
// left; maxTimeMS ends the wait with MaxTimeMSExpired.
func cleanupOrphaned(c *Ctx, r *request.CleanupOrphaned) (bson.D, error) {
	rd, err := rangeDeletions(c, "cleanupOrphaned")
	if err != nil {
		return nil, err
	}
	if err := checkNS(r.NS); err != nil {
		return nil, err
	}
	if c.D.repl != nil {
		if err := c.D.repl.CheckWrite("admin"); err != nil {
			return nil, err
		}
	}
	ctx, cancel := c.replContext()
	defer cancel()
	if err := rd.WaitRangeDeletions(ctx, r.NS); err != nil {
		return nil, waitError(err, "cleanupOrphaned")
	}
	return bson.D{}, nil
}

// shardsvrScheduleRangeDeletion persists a task (with majority).
func shardsvrScheduleRangeDeletion(c *Ctx, r *request.ShardsvrScheduleRangeDeletion) (bson.D, error) {
	rd, err := rangeDeletions(c, "_shardsvrScheduleRangeDeletion")
	if err != nil {
		return nil, err
	}
	if err := checkNS(r.NS); err != nil {
		return nil, err
	}
	lo, _ := bsonx.Get(r.Range, "min")
	hi, _ := bsonx.Get(r.Range, "max")
	loD, okLo := lo.(bson.D)
	hiD, okHi := hi.(bson.D)
	if !okLo || !okHi {
		return nil, mongoerr.New(mongoerr.TypeMismatch, "range must be {min: <document>, max: <document>}")
	}
	when := r.WhenToClean
	if when == "" {
		when = "now"
	}
	ctx, cancel := c.replContext()
	defer cancel()
	id, err := rd.ScheduleRangeDeletion(ctx, r.NS, loD, hiD, when)
	if err != nil {
		return nil, waitError(err, "_shardsvrScheduleRangeDeletion")
	}
	return bson.D{{Key: "taskId", Value: id}}, nil
}

// waitError turns a context's end into MaxTimeMSExpired.
func waitError(err error, cmd string) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return mongoerr.New(mongoerr.MaxTimeMSExpired, "%s: operation exceeded time limit", cmd)
	}
	return err
}
