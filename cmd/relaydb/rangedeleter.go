package main

import (
	"context"
	"log/slog"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/command"
	"github.com/relaydb/relaydb/internal/shard/shardsvr"
)

// majorityTimeout bounds the range deleter's wait for one write's
// majority commit.
const majorityTimeout = time.Minute

type rangeDeleter struct {
	rd        *shardsvr.RangeDeleter
	store     shardsvr.EngineRangeStore
	isPrimary func() bool
	stop      func()
}

// startRangeDeleter runs a shard's range deleter for the life of the
// process; it deletes only while this member is primary (the loop asks
// before each task and batch), so a step-down pauses it and the next
// primary resumes the persisted tasks.
func startRangeDeleter(disp *command.Dispatcher, state *shardsvr.State, log *slog.Logger) rangeDeleter {
	store := shardsvr.EngineRangeStore{Eng: disp.Engine(), WaitMajority: func(ctx context.Context, ts bson.Timestamp) error {
		r := disp.Replication()
		if r == nil {
			return nil
		}
		ctx, cancel := context.WithTimeout(ctx, majorityTimeout)
		defer cancel()
		return r.WaitWriteConcern(ctx, ts, "majority", false)
	}}
	isPrimary := func() bool {
		r := disp.Replication()
		return r == nil || r.CheckWrite(shardsvr.RangeTasksDB) == nil
	}
	rd := shardsvr.NewRangeDeleter(shardsvr.RangeDeleterOptions{Store: store, Owner: state.ChunkOwner, IsPrimary: isPrimary, Logger: log})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); rd.Run(ctx) }()
	return rangeDeleter{rd: rd, store: store, isPrimary: isPrimary, stop: func() { cancel(); <-done }}
}
