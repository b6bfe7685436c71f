package command

import (
	"context"
	"slices"
	"sort"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// fsync makes every write committed so far durable (a WAL sync shared
// with the group commit) and answers {numFiles: 1}, as mongod does.
// lock: true (refuse writes until fsyncUnlock) is not implemented:
// TODO(#14): fsync lock / fsyncUnlock with a write gate.
func fsync(c *Ctx, p *request.Fsync) (bson.D, error) {
	if lenient(p.Lock) {
		return nil, mongoerr.New(mongoerr.NotImplemented, "relaydb does not support fsync with lock: true")
	}
	cat := c.D.eng.Catalog()
	if err := cat.WaitDurable(context.Background(), cat.LastWrite()); err != nil {
		return nil, mongoerr.New(mongoerr.InternalError, "fsync: %v", err)
	}
	return bson.D{{Key: "numFiles", Value: int32(1)}}, nil
}

// fsyncUnlock answers as mongod does when no fsync lock is held (relaydb
// never takes one).
func fsyncUnlock(*Ctx, *request.FsyncUnlock) (bson.D, error) {
	return nil, mongoerr.New(mongoerr.IllegalOperation, "fsyncUnlock called when not locked")
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
func init() {
	for _, c := range []*Command{
		{Name: "fsync", AdminOnly: true, Help: "makes every write durable (lock: true is not supported)", Def: typed(fsync)},
		{Name: "fsyncUnlock", AdminOnly: true, Help: "answers that no fsync lock is held", Def: typed(fsyncUnlock)},
		{Name: "testVersion1", Help: "a Stable API test command in API Version 1", Def: typed(testVersion1)},
		{Name: "testVersion2", Help: "a Stable API test command outside API Version 1", Def: typed(testVersion2)},
	} {
		i := sort.Search(len(commands), func(i int) bool { return commands[i].Name >= c.Name })
		commands = slices.Insert(commands, i, c)
	}
}
