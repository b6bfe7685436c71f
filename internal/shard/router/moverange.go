package router

import (
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/key"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// moveChunk ({moveChunk: ns, find | bounds, to, _waitForDelete}) and
// moveRange ({moveRange: ns, toShard, min, max?, waitForDelete}) move a
// chunk to another shard: the router finds the chunk, splits it first
// when the range is part of one (moveRange), and sends _shardsvrMoveRange
// to the owning shard's primary, which runs the migration to its end
// (shardsvr.Migrations). A chunk already on the target is a no-op, as in
// MongoDB 7.0. The router's cache is reloaded afterwards; other routers
// learn the move from StaleConfig.
func init() {
	localCommands["moveChunk"] = handler{fn: moveChunk, adminOnly: true}
	localCommands["moveRange"] = handler{fn: moveRange, adminOnly: true}
}

func moveChunk(c *call) (bson.D, error) {
	ns, cm, err := c.movedCollection()
	if err != nil {
		return nil, err
	}
	to, _ := bsonx.Get(c.cmd, "to")
	toShard, _ := to.(string)
	if toShard == "" {
		return nil, mongoerr.New(mongoerr.IDLMissingField, "BSON field 'moveChunk.to' is missing but a required field")
	}
	find, hasFind := bsonx.Get(c.cmd, "find")
	bounds, hasBounds := bsonx.Get(c.cmd, "bounds")
	if hasFind == hasBounds {
		return nil, mongoerr.New(mongoerr.InvalidOptions, "need to specify either find or bounds, but not both")
	}
	var chunk routing.Chunk
	if hasFind {
		q, _ := find.(bson.D)
		k, ok := routing.ShardKeyFromFilter(cm.Pattern(), q)
		if !ok {
			return nil, mongoerr.New(mongoerr.ShardKeyNotFound, "no shard key found in chunk query %s", key.Format(q))
		}
		if chunk, err = cm.FindChunk(k); err != nil {
			return nil, err
		}
	} else {
		lo, hi, err := boundsArg(cm, bounds)
		if err != nil {
			return nil, err
		}
		chunk, err = cm.FindChunk(lo)
		if err != nil || key.Compare(chunk.Min, lo) != 0 || key.Compare(chunk.Max, hi) != 0 {
			return nil, mongoerr.New(mongoerr.InvalidOptions, "no chunk found with the shard key bounds [%s, %s)", key.Format(lo), key.Format(hi))
		}
	}
	start := time.Now()
	if err := c.moveTo(ns, cm, chunk, toShard, waitForDelete(c.cmd)); err != nil {
		return nil, err
	}
	return bson.D{{Key: "millis", Value: time.Since(start).Milliseconds()}}, nil
}

func moveRange(c *call) (bson.D, error) {
	ns, cm, err := c.movedCollection()
	if err != nil {
		return nil, err
	}
	to, _ := bsonx.Get(c.cmd, "toShard")
	toShard, _ := to.(string)
	if toShard == "" {
		return nil, mongoerr.New(mongoerr.IDLMissingField, "BSON field 'moveRange.toShard' is missing but a required field")
	}
	p := cm.Pattern()
	lo, err := keyArg(p, c.cmd, "min")
	if err != nil {
		return nil, err
	}
	if lo == nil {
		return nil, mongoerr.New(mongoerr.InvalidOptions, "moveRange needs min (a max alone is not supported)")
	}
	hi, err := keyArg(p, c.cmd, "max")
	if err != nil {
		return nil, err
	}
	chunk, err := cm.FindChunk(lo)
	if err != nil {
		return nil, err
	}
	onDB := c.onConfig(ns)
	if key.Compare(chunk.Min, lo) != 0 { // the range starts inside the chunk
		if cm, err = c.r.splitAt(onDB, cm, chunk, lo); err != nil {
			return nil, err
		}
		if chunk, err = cm.FindChunk(lo); err != nil {
			return nil, err
		}
	}
	if hi != nil && key.Compare(hi, chunk.Max) < 0 {
		if key.Compare(hi, chunk.Min) <= 0 {
			return nil, mongoerr.New(mongoerr.InvalidOptions, "max %s must be greater than min %s", key.Format(hi), key.Format(lo))
		}
		if cm, err = c.r.splitAt(onDB, cm, chunk, hi); err != nil {
			return nil, err
		}
		if chunk, err = cm.FindChunk(lo); err != nil {
			return nil, err
		}
	} else if hi != nil && key.Compare(hi, chunk.Max) > 0 {
		return nil, mongoerr.New(mongoerr.InvalidOptions, "the range [%s, %s) spans more than the chunk %s", key.Format(lo), key.Format(hi), chunk.Range())
	}
	if err := c.moveTo(ns, cm, chunk, toShard, waitForDelete(c.cmd)); err != nil {
		return nil, err
	}
	return bson.D{}, nil
}

// movedCollection returns the routing table of the namespace named by the
// command, read fresh from the config servers.
func (c *call) movedCollection() (string, *routing.ChunkManager, error) {
	if err := c.useMetadataWriteConcern(); err != nil {
		return "", nil, err
	}
	ns, _ := c.cmd[0].Value.(string)
	db, coll, ok := strings.Cut(ns, ".")
	if !ok || db == "" || coll == "" {
		return "", nil, mongoerr.New(mongoerr.InvalidNamespace, "Invalid namespace specified '%s'", ns)
	}
	c.r.catalog.invalidate(ns)
	cm, err := c.r.catalog.get(c.ctx, ns)
	if err != nil {
		return "", nil, err
	}
	if cm == nil {
		return "", nil, mongoerr.New(mongoerr.NamespaceNotSharded, "ns [%s] is not sharded.", ns)
	}
	return ns, cm, nil
}

func (c *call) onConfig(ns string) *call {
	db, _, _ := strings.Cut(ns, ".")
	return &call{r: c.r, conn: c.conn, db: db, cmd: bson.D{{Key: "split", Value: ns}}, name: c.name, ctx: c.ctx}
}

// moveTo sends _shardsvrMoveRange for chunk to its owner's primary.
func (c *call) moveTo(ns string, cm *routing.ChunkManager, chunk routing.Chunk, to string, waitDelete bool) error {
	if _, err := c.r.shard(c.ctx, to); err != nil {
		return err
	}
	if chunk.Shard == to {
		return nil
	}
	owner, err := c.r.shard(c.ctx, chunk.Shard)
	if err != nil {
		return err
	}
	coll := cm.Collection()
	cmd := bson.D{{Key: "_shardsvrMoveRange", Value: ns}, {Key: "toShard", Value: to},
		{Key: "min", Value: chunk.Min}, {Key: "max", Value: chunk.Max}, {Key: "waitForDelete", Value: waitDelete},
		{Key: "epoch", Value: coll.Epoch}, {Key: "collectionTimestamp", Value: coll.Timestamp}, {Key: "fromShard", Value: chunk.Shard},
		{Key: "writeConcern", Value: bson.D{{Key: "w", Value: "majority"}}}}
	_, _, err = owner.RunOnPrimary(c.ctx, "admin", cmd, false)
	c.r.catalog.invalidate(ns)
	if err != nil {
		return err
	}
	c.r.log.Info("moved chunk", "ns", ns, "chunk", chunk.Range(), "from", chunk.Shard, "to", to)
	return nil
}

func waitForDelete(cmd bson.D) bool {
	for _, f := range []string{"waitForDelete", "_waitForDelete"} {
		if v, ok := bsonx.Get(cmd, f); ok && v == true {
			return true
		}
	}
	return false
}

// keyArg returns the shard key document field name of cmd (nil when absent).
func keyArg(p key.Pattern, cmd bson.D, name string) (bson.D, error) {
	v, ok := bsonx.Get(cmd, name)
	if !ok {
		return nil, nil
	}
	d, isDoc := v.(bson.D)
	if !isDoc {
		return nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field '%s' is the wrong type '%s', expected type 'object'", name, typeName(v))
	}
	k, ok := p.Normalize(d)
	if !ok || len(d) != p.Len() {
		return nil, mongoerr.New(mongoerr.InvalidOptions, "%s %s is not valid for shard key pattern %s", name, key.Format(d), p)
	}
	return k, nil
}

// boundsArg parses bounds: [min, max].
func boundsArg(cm *routing.ChunkManager, v any) (lo, hi bson.D, err error) {
	arr, _ := v.(bson.A)
	if len(arr) == 2 {
		lo, _ = arr[0].(bson.D)
		hi, _ = arr[1].(bson.D)
	}
	p := cm.Pattern()
	nlo, okLo := p.Normalize(lo)
	nhi, okHi := p.Normalize(hi)
	if lo == nil || hi == nil || !okLo || !okHi {
		return nil, nil, mongoerr.New(mongoerr.InvalidOptions, "bounds must be an array of two shard key documents: [min, max]")
	}
	return nlo, nhi, nil
}
