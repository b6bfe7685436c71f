package command

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// fsync makes every write committed so far durable (a WAL sync shared
// with the group commit) and answers {numFiles: 1}, as mongod does. With
// lock: true it also takes the fsync lock (fsync_lock.go): client writes
// wait until as many fsyncUnlock as locks were taken.
func fsync(c *Ctx, p *request.Fsync) (bson.D, error) {
	lock := lenient(p.Lock)
	var count int64
	if lock {
		count = fsyncLock.lock()
	}
	cat := c.D.eng.Catalog()
	if err := cat.WaitDurable(context.Background(), cat.LastWrite()); err != nil {
		if lock {
			fsyncLock.unlock()
		}
		return nil, mongoerr.New(mongoerr.InternalError, "fsync: %v", err)
	}
	reply := bson.D{{Key: "numFiles", Value: int32(1)}}
	if lock {
		reply = append(reply, bson.E{Key: "lockCount", Value: count},
			bson.E{Key: "info", Value: "now locked against writes, use db.fsyncUnlock() to unlock"},
			bson.E{Key: "seeAlso", Value: "http://dochub.mongodb.org/core/fsynccommand"})
	}
	return reply, nil
}

// fsyncUnlock releases one fsync lock; IllegalOperation when none is held.
func fsyncUnlock(*Ctx, *request.FsyncUnlock) (bson.D, error) {
	count, ok := fsyncLock.unlock()
	if !ok {
		return nil, mongoerr.New(mongoerr.IllegalOperation, "fsyncUnlock called when not locked")
	}
	return bson.D{{Key: "info", Value: "fsyncUnlock completed"}, {Key: "lockCount", Value: count}}, nil
}

// testVersion1 and testVersion2 are mongod's Stable API test commands
// (enableTestCommands): both answer ok; apiStrict refuses testVersion2,
// which is outside API Version 1 (apiparams.go).
func testVersion1(*Ctx, *request.TestVersion1) (bson.D, error) { return bson.D{}, nil }

func testVersion2(*Ctx, *request.TestVersion2) (bson.D, error) { return bson.D{}, nil }

// init enters fsync, fsyncUnlock and the Stable API test commands into the
// command table, in sorted order, before registry.go's init loads it.
// TODO(#14): move these entries into the table in commands.go (they are
// added here because commands.go carried another change in progress).
