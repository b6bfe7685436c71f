package router

import (
	"fmt"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// listDatabases is the union of the shards' databases (admin, config and
// local excepted) plus admin and config from the config servers; sizes of
// a database on several shards are summed.
func listDatabases(c *call) (bson.D, error) {
	if err := refuseSnapshotRead(c.cmd, "listDatabases"); err != nil {
		return nil, err
	}
	shards, err := c.r.allShards(c.ctx)
	if err != nil {
		return nil, err
	}
	args := bson.D{{Key: "listDatabases", Value: int32(1)}}
	for _, k := range []string{"filter", "nameOnly"} {
		if v, ok := bsonx.Get(c.cmd, k); ok {
			args = append(args, bson.E{Key: k, Value: v})
		}
	}
	ids := make([]string, 0, len(shards))
	for id := range shards {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var all dbList
	for _, id := range ids {
		reply, err := shards[id].Run(c.ctx, "admin", args, true)
		if err != nil {
			return nil, fmt.Errorf("listDatabases on shard %s: %w", id, err)
		}
		all.add(reply, func(n string) bool { return !systemDB(n) })
	}
	reply, err := c.r.cfg.Run(c.ctx, "admin", args, true)
	if err != nil {
		return nil, fmt.Errorf("listDatabases on the config servers: %w", err)
	}
	all.add(reply, func(n string) bool { return n == "admin" || n == "config" })
	nameOnly, _ := bsonx.Get(c.cmd, "nameOnly")
	b, _ := nameOnly.(bool)
	return all.reply(!b), nil
}

// dbList merges listDatabases replies by database name.
type dbList struct {
	byName map[string]bson.D
	names  []string
}

// add takes the entries of reply whose name keep accepts.
func (l *dbList) add(reply bson.D, keep func(string) bool) {
	if l.byName == nil {
		l.byName = map[string]bson.D{}
	}
	v, _ := bsonx.Get(reply, "databases")
	arr, _ := v.(bson.A)
	for _, e := range arr {
		d, _ := e.(bson.D)
		n, _ := bsonx.Get(d, "name")
		name, _ := n.(string)
		if name == "" || !keep(name) {
			continue
		}
		if old, ok := l.byName[name]; ok {
			l.byName[name] = sumSizes(old, d)
			continue
		}
		l.byName[name] = d
		l.names = append(l.names, name)
	}
}

// reply is {databases (by name)[, totalSize, totalSizeMb]}.
func (l *dbList) reply(withSizes bool) bson.D {
	slices.Sort(l.names)
	dbs := bson.A{}
	var total int64
	for _, n := range l.names {
		d := l.byName[n]
		s, _ := bsonx.AsInt64(mustGet(d, "sizeOnDisk"))
		total += s
		dbs = append(dbs, d)
	}
	out := bson.D{{Key: "databases", Value: dbs}}
	if withSizes {
		out = append(out, bson.E{Key: "totalSize", Value: total}, bson.E{Key: "totalSizeMb", Value: total >> 20})
	}
	return out
}

// sumSizes adds b's sizeOnDisk to a's and ands their empty flags.
func sumSizes(a, b bson.D) bson.D {
	out := slices.Clone(a)
	for i, e := range out {
		switch e.Key {
		case "sizeOnDisk":
			x, _ := bsonx.AsInt64(e.Value)
			y, _ := bsonx.AsInt64(mustGet(b, "sizeOnDisk"))
			out[i].Value = x + y
		case "empty":
			x, _ := e.Value.(bool)
			y, _ := mustGet(b, "empty").(bool)
			out[i].Value = x && y
		}
	}
	return out
}

func mustGet(d bson.D, k string) any {
	v, _ := bsonx.Get(d, k)
	return v
}

// refuseSnapshotRead refuses readConcern {level: "snapshot"} on a command
// the router answers itself that takes it only in a transaction, as a
// data node does (InvalidOptions).
func refuseSnapshotRead(cmd bson.D, name string) error {
	rc, _ := bsonx.Get(cmd, "readConcern")
	rcd, _ := rc.(bson.D)
	if level, _ := bsonx.Get(rcd, "level"); level != "snapshot" {
		return nil
	}
	return mongoerr.New(mongoerr.InvalidOptions, "Command %s does not support readConcern level snapshot outside a multi-statement transaction", name)
}
