package router

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/query"
	"github.com/relaydb/relaydb/internal/shard/key"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// An update or findAndModify whose new shard key belongs to another shard
// is answered by its shard with WouldChangeOwningShard (283) carrying the
// pre- and post-image (package shardsvr; the shard refuses it outside a
// retryable write with IllegalOperation 20 and in a multi update with
// InvalidOptions 72, as MongoDB's shards do). The router then moves the
// document, as MongoDB's mongos does for a batch of one statement (a
// larger batch gets InvalidOptions for that statement):
//
//  1. the post-image is inserted on its owning shard (without the
//     session: a repeated insert meets the copy already there, an equal
//     document under the same _id, and counts as done; an upsert's
//     insert, the statement's only write, carries the session);
//  2. the pre-image is deleted from its shard by _id and shard key, with
//     the client's lsid, txnNumber and stmtId, so the old shard records the
//     statement as run and a retry of it is answered from that record;
//  3. if that delete matched nothing (the document was changed or removed
//     meanwhile) the copy is deleted again and the statement reports no
//     match.
//
// The client sees an update with n 1 and nModified 1 (an upsert's
// upserted _id), or findAndModify's pre- or post-image.
//
// Weaker than MongoDB, which does both writes in one distributed
// transaction: between steps 1 and 2 the document exists on both shards
// (a crash there leaves both until the client retries, and the retry
// completes the move without a third copy); a change to the document
// between the shard's answer and step 2 is overwritten by the post-image
// computed before it. A retried findAndModify answered from the old
// shard's record has no value (TODO(#4): the images are not kept).
// TODO(#14): the move in one distributed transaction (and without a
// retryable write, as MongoDB 7.0 does with an internal transaction).

// batchOfOneMsg is MongoDB's refusal of a move inside a larger batch.
const batchOfOneMsg = "Document shard key value updates that cause the doc to move shards must be sent with write batch of size 1"

// duplicateIDContext is MongoDB's context for a duplicate _id on the new
// shard.
const duplicateIDContext = "Failed to update document's shard key field. There is either an orphan for this document or _id for this collection is not globally unique."

// keyChange is a shard's WouldChangeOwningShardInfo.
type keyChange struct {
	pre, post bson.D
	upsert    bool
}

// parseKeyChange reads the info from an error reply or a write error.
func parseKeyChange(d bson.D) (keyChange, bool) {
	kc := keyChange{pre: docField(d, "preImage"), post: docField(d, "postImage")}
	v, _ := bsonx.Get(d, "shouldUpsert")
	kc.upsert, _ = v.(bool)
	return kc, errCode(d) == int64(mongoerr.WouldChangeOwningShard) && kc.post != nil && (kc.pre != nil || kc.upsert)
}

// resolveKeyChanges replaces the WouldChangeOwningShard write errors of
// an update command by the move of the document (a batch of one) or by
// InvalidOptions (a larger batch).
func (r *Router) resolveKeyChanges(c *call, ns string, cm *routing.ChunkManager, stmts bson.A, res *writeResult) {
	var keep []bson.D
	for _, we := range res.errs {
		kc, ok := parseKeyChange(we)
		idx := int(int64Field(we, "index"))
		switch {
		case !ok:
			keep = append(keep, we)
		case len(stmts) != 1:
			keep = append(keep, errorEntry(idx, mongoerr.New(mongoerr.InvalidOptions, batchOfOneMsg)))
		default:
			var moved bool
			var err error
			moved, cm, err = r.moveDocument(c, ns, cm, kc, stmtIDOf(c.cmd))
			if err != nil {
				keep = append(keep, errorEntry(idx, err))
				continue
			}
			if moved {
				res.countMove(idx, kc)
			}
		}
	}
	res.errs = keep
}

func (w *writeResult) countMove(idx int, kc keyChange) {
	w.n++
	if !kc.upsert {
		w.nModified++
		return
	}
	id, _ := bsonx.Get(kc.post, "_id")
	w.upserted = append(w.upserted, bson.D{{Key: "index", Value: int32(idx)}, {Key: "_id", Value: id}})
}

func errorEntry(idx int, err error) bson.D {
	me := mongoerr.From(err)
	return bson.D{{Key: "index", Value: int32(idx)}, {Key: "code", Value: int32(me.Code)},
		{Key: "codeName", Value: me.Code.Name()}, {Key: "errmsg", Value: me.Msg}}
}

// stmtIDOf is the statement id of a command's only statement.
func stmtIDOf(cmd bson.D) int32 {
	if ids := stmtIDs(cmd, 1); ids != nil {
		return ids[0]
	}
	return 0
}

// moveDocument inserts the post-image on its shard and deletes the
// pre-image from its own; moved is false when the pre-image was gone.
func (r *Router) moveDocument(c *call, ns string, cm *routing.ChunkManager, kc keyChange, stmtID int32) (bool, *routing.ChunkManager, error) {
	coll, _ := c.cmd[0].Value.(string)
	ins := bson.D{{Key: "insert", Value: coll}, {Key: "documents", Value: bson.A{kc.post}}}
	if kc.upsert { // the statement's only write: the owner records it, so a retry is recognised there
		ins = withSession(ins, c.cmd, stmtID)
	}
	ins = withClientWriteConcern(ins, c.cmd)
	reply, cm, err := r.sendByKey(c, ns, cm, kc.post, ins)
	if err == nil && len(writeErrors(reply)) > 0 {
		err = r.insertedBefore(c, ns, cm, kc.post, writeErrors(reply)[0])
	}
	if err != nil || kc.upsert {
		return err == nil, cm, err
	}
	del := bson.D{{Key: "delete", Value: coll}, {Key: "deletes", Value: bson.A{
		bson.D{{Key: "q", Value: idAndKey(cm.Pattern(), kc.pre)}, {Key: "limit", Value: int32(1)}}}}}
	del = withClientWriteConcern(withSession(del, c.cmd, stmtID), c.cmd)
	if reply, cm, err = r.sendByKey(c, ns, cm, kc.pre, del); err == nil && len(writeErrors(reply)) > 0 {
		err = entryError(writeErrors(reply)[0])
	}
	if err != nil {
		me := mongoerr.From(err)
		return false, cm, mongoerr.New(me.Code, "the document was copied to the shard owning its new shard key but not deleted from its old shard (retry the write to complete the move): %s", me.Msg)
	}
	if int64Field(reply, "n") > 0 {
		return true, cm, nil
	}
	undo := bson.D{{Key: "delete", Value: coll}, {Key: "deletes", Value: bson.A{
		bson.D{{Key: "q", Value: idAndKey(cm.Pattern(), kc.post)}, {Key: "limit", Value: int32(1)}}}}}
	if _, cm, err = r.sendByKey(c, ns, cm, kc.post, withClientWriteConcern(undo, c.cmd)); err != nil {
		return false, cm, err
	}
	return false, cm, nil
}

// insertedBefore accepts a duplicate _id on the new shard when the
// document there is the post-image (an earlier attempt's copy).
func (r *Router) insertedBefore(c *call, ns string, cm *routing.ChunkManager, post, we bson.D) error {
	err := entryError(we)
	if errCode(we) != int64(mongoerr.DuplicateKey) {
		return err
	}
	if kp := docField(we, "keyPattern"); kp != nil {
		if _, onID := bsonx.Get(kp, "_id"); !onID {
			return err
		}
	}
	coll, _ := c.cmd[0].Value.(string)
	id, _ := bsonx.Get(post, "_id")
	find := bson.D{{Key: "find", Value: coll}, {Key: "filter", Value: bson.D{{Key: "_id", Value: id}}},
		{Key: "limit", Value: int64(1)}, {Key: "singleBatch", Value: true}}
	reply, _, ferr := r.sendByKey(c, ns, cm, post, find)
	if ferr == nil {
		if b := firstBatch(reply); len(b) == 1 && sameDoc(b[0], post) {
			return nil
		}
	}
	return mongoerr.New(mongoerr.DuplicateKey, "%s :: %s", duplicateIDContext, mongoerr.From(err).Msg)
}

// sendByKey sends cmd to the shard owning doc, refreshing after a
// StaleConfig; an ok:0 reply is its error.
func (r *Router) sendByKey(c *call, ns string, cm *routing.ChunkManager, doc, cmd bson.D) (bson.D, *routing.ChunkManager, error) {
	for attempt := 0; ; attempt++ {
		shard, err := cm.ShardFor(doc)
		if err != nil {
			return nil, cm, err
		}
		sr := r.send(c, shard, withVersion(cmd, cm, shard), false)
		if r.staleAt(sr) < 0 {
			return sr.reply, cm, sr.err
		}
		if cm, err = r.refreshAfterStale(c.ctx, ns, cm, attempt); err != nil {
			return nil, cm, err
		}
	}
}

// idAndKey is a filter on doc's _id and shard key values.
func idAndKey(p key.Pattern, doc bson.D) bson.D {
	return narrowFilter(p, nil, doc)
}

// withSession adds the client's lsid and txnNumber and one statement id.
func withSession(cmd, client bson.D, stmtID int32) bson.D {
	for _, name := range []string{"lsid", "txnNumber"} {
		if v, ok := bsonx.Get(client, name); ok {
			cmd = append(cmd, bson.E{Key: name, Value: v})
		}
	}
	if _, ok := bsonx.Get(client, "txnNumber"); ok {
		cmd = append(cmd, bson.E{Key: "stmtIds", Value: bson.A{stmtID}})
	}
	return cmd
}

func withClientWriteConcern(cmd, client bson.D) bson.D {
	if wc, ok := bsonx.Get(client, "writeConcern"); ok {
		return append(cmd, bson.E{Key: "writeConcern", Value: wc})
	}
	return cmd
}

// entryError is a write error entry as an error.
func entryError(we bson.D) error {
	msg, _ := bsonx.Get(we, "errmsg")
	s, _ := msg.(string)
	return mongoerr.New(mongoerr.Code(errCode(we)), "%s", s)
}

func sameDoc(a, b bson.D) bool {
	x, errA := bson.Marshal(a)
	y, errB := bson.Marshal(b)
	return errA == nil && errB == nil && string(x) == string(y)
}

// findAndModifyKeyChange moves the document a findAndModify would move
// and answers as the shard would have: the pre-image, or the post-image
// with new, projected by fields.
func (r *Router) findAndModifyKeyChange(c *call, ns string, cm *routing.ChunkManager, reply bson.D) (bson.D, error) {
	kc, ok := parseKeyChange(reply)
	if !ok {
		return reply, nil
	}
	moved, _, err := r.moveDocument(c, ns, cm, kc, stmtIDOf(c.cmd))
	if err != nil {
		return nil, err
	}
	if !moved {
		return bson.D{{Key: "lastErrorObject", Value: bson.D{{Key: "n", Value: int32(0)}, {Key: "updatedExisting", Value: false}}},
			{Key: "value", Value: nil}, {Key: "ok", Value: 1.0}}, nil
	}
	value := kc.pre // an upsert's pre-image is its filter: no document
	switch {
	case truthy(c.cmd, "new"):
		value = kc.post
	case kc.upsert:
		value = nil
	}
	var out any
	if value != nil {
		projected, err := projectValue(value, docField(c.cmd, "fields"))
		if err != nil {
			return nil, err
		}
		out = projected
	}
	leo := bson.D{{Key: "n", Value: int32(1)}, {Key: "updatedExisting", Value: !kc.upsert}}
	if kc.upsert {
		id, _ := bsonx.Get(kc.post, "_id")
		leo = append(leo, bson.E{Key: "upserted", Value: id})
	}
	return bson.D{{Key: "lastErrorObject", Value: leo}, {Key: "value", Value: out}, {Key: "ok", Value: 1.0}}, nil
}

func projectValue(doc, fields bson.D) (bson.D, error) {
	if len(fields) == 0 {
		return doc, nil
	}
	p, err := query.CompileProjection(fields)
	if err != nil {
		return nil, err
	}
	return p.Apply(doc, -1)
}
