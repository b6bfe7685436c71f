package router

import (
	"crypto/rand"
	"encoding/hex"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// $out and $merge after a sharded source run on the router (MongoDB runs
// them on a shard): the merge part's documents are written through the
// router's own insert, update and find paths, in batches, with the
// client's writeConcern, so the target may be sharded ($merge) or not.
//
// $out builds its result in a temporary collection tmp.agg_out.<hex> of
// the target database (with the target's indexes), then renames it over
// the target with dropTarget, so a failed aggregate leaves the target as
// it was; the temporary collection is dropped on failure. $out to a
// sharded collection is refused (28769), as by MongoDB, before and again
// just before the rename.

// outBatchDocs and outBatchBytes bound one insert the router sends.
const (
	outBatchDocs  = 1000
	outBatchBytes = 8 << 20
)

// checkOutTarget refuses $out to a sharded collection.
func (r *Router) checkOutTarget(c *call, out *agg.OutSpec) error {
	cm, err := r.catalog.get(c.ctx, out.DB+"."+out.Coll)
	if err != nil {
		return err
	}
	if cm != nil {
		return mongoerr.New(mongoerr.OutToShardedCollection, "$out cannot write to the sharded collection %s.%s", out.DB, out.Coll)
	}
	return nil
}

// outReadConcern refuses $out and $merge under a linearizable read
// concern, as a data node does (InvalidOptions): the shards' part of a
// split pipeline carries no writer stage, so they cannot refuse it.
func outReadConcern(cmd bson.D, out *agg.OutSpec, merge *agg.MergeSpec) error {
	if out == nil && merge == nil {
		return nil
	}
	rc, _ := bsonx.Get(cmd, "readConcern")
	rcd, _ := rc.(bson.D)
	if level, _ := bsonx.Get(rcd, "level"); level != "linearizable" {
		return nil
	}
	stage := "$out"
	if merge != nil {
		stage = "$merge"
	}
	return mongoerr.New(mongoerr.InvalidOptions, "%s cannot be used with a 'linearizable' read concern level", stage)
}

// writeOutput drains the merge part into the $out or $merge target and
// answers with an empty, exhausted cursor.
func (r *Router) writeOutput(c *call, mc *mergedCursor, out *agg.OutSpec, merge *agg.MergeSpec) (bson.D, error) {
	lsid, _ := bsonx.Get(c.cmd, "lsid")
	mc.mu.Lock()
	defer mc.mu.Unlock()
	defer r.killRemotes(c, mc, lsid)
	var err error
	if out != nil {
		err = r.writeOut(c, mc, out)
	} else {
		err = r.writeMerge(c, mc, merge)
	}
	if err != nil {
		return nil, err
	}
	return cursorReply(mc.ns, 0, "firstBatch", nil), nil
}

// withWC adds the client's writeConcern to a write the router sends.
func withWC(c *call, cmd bson.D) bson.D {
	if wc, ok := bsonx.Get(c.cmd, "writeConcern"); ok {
		return append(cmd, bson.E{Key: "writeConcern", Value: wc})
	}
	return cmd
}

func (r *Router) writeOut(c *call, mc *mergedCursor, out *agg.OutSpec) error {
	var b [8]byte
	_, _ = rand.Read(b[:])
	tmp := "tmp.agg_out." + hex.EncodeToString(b[:])
	if _, err := r.subCommand(c, out.DB, withWC(c, bson.D{{Key: "create", Value: tmp}})); err != nil {
		return err
	}
	err := r.fillOut(c, mc, out, tmp)
	if err == nil {
		err = r.checkOutTarget(c, out)
	}
	if err == nil {
		_, err = r.subCommand(c, "admin", withWC(c, bson.D{{Key: "renameCollection", Value: out.DB + "." + tmp},
			{Key: "to", Value: out.DB + "." + out.Coll}, {Key: "dropTarget", Value: true}}))
	}
	if err != nil {
		_, _ = r.subCommand(c, out.DB, bson.D{{Key: "drop", Value: tmp}})
	}
	return err
}

// fillOut copies the target's indexes to tmp and inserts the results.
func (r *Router) fillOut(c *call, mc *mergedCursor, out *agg.OutSpec, tmp string) error {
	if err := r.copyIndexes(c, out, tmp); err != nil {
		return err
	}
	var batch bson.A
	size := 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		reply, err := r.subCommand(c, out.DB, withWC(c, bson.D{{Key: "insert", Value: tmp}, {Key: "documents", Value: batch}, {Key: "ordered", Value: true}}))
		batch, size = nil, 0
		if err != nil {
			return err
		}
		return writeReplyError(reply)
	}
	for {
		docs, done, err := r.pipeBatch(c, mc, outBatchDocs)
		if err != nil {
			return err
		}
		for _, d := range docs {
			n, _ := bsonx.Encode(d)
			if len(batch) >= outBatchDocs || size+len(n) > outBatchBytes {
				if err := flush(); err != nil {
					return err
				}
			}
			batch, size = append(batch, d), size+len(n)
		}
		if done {
			return flush()
		}
	}
}

// copyIndexes creates the existing target's indexes (but _id's) on tmp.
func (r *Router) copyIndexes(c *call, out *agg.OutSpec, tmp string) error {
	reply, err := r.subCommand(c, out.DB, bson.D{{Key: "listIndexes", Value: out.Coll}})
	if mongoerr.Is(err, mongoerr.NamespaceNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	var specs bson.A
	for _, ix := range firstBatch(reply) { // an index list fits in one batch
		if name, _ := bsonx.Get(ix, "name"); name == "_id_" {
			continue
		}
		specs = append(specs, withoutField(withoutField(ix, "v"), "ns"))
	}
	if len(specs) == 0 {
		return nil
	}
	_, err = r.subCommand(c, out.DB, withWC(c, bson.D{{Key: "createIndexes", Value: tmp}, {Key: "indexes", Value: specs}}))
	return err
}

// writeReplyError is the first write error or the write concern error
// of a write command's reply.
func writeReplyError(reply bson.D) error {
	v, _ := bsonx.Get(reply, "writeErrors")
	if errs, _ := v.(bson.A); len(errs) > 0 {
		we, _ := errs[0].(bson.D)
		return replyError(append(withoutField(we, "ok"), bson.E{Key: "ok", Value: 0.0}))
	}
	if wce, ok := bsonx.Get(reply, "writeConcernError"); ok {
		d, _ := wce.(bson.D)
		return replyError(append(withoutField(d, "ok"), bson.E{Key: "ok", Value: 0.0}))
	}
	return nil
}
