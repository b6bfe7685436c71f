package configsvr

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/key"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// CommitChunkSplit replaces chunk old of coll in config.chunks by pieces
// (as routing.ChunkManager.Split made them: contiguous, old's bounds,
// new lastmods), each write with w:"majority". MongoDB commits a split
// with one applyOps (a transaction): readers see the old chunk or all
// pieces. relaydb's config servers write document by document, so the
// order is chosen so that a concurrent reader never sees a gap: the upper
// pieces are inserted first (new _ids; onCurrentShardSince and history
// copied from old, as MongoDB does), then old itself is updated in place
// into the first piece (its _id kept, as MongoDB keeps it for the first
// piece; max and lastmod changed). Between the two a reader sees old
// overlapping the new pieces, which routing.New reports as
// ConflictingOperationInProgress (117) and the reader reads again; a gap
// instead could, with a reader that tolerated it, lose a key range.
// The update is a compare-and-swap on old's lastmod and max: old changed
// meanwhile (another split) is ConflictingOperationInProgress and the
// inserted pieces are removed again.
func (c *Catalog) CommitChunkSplit(ctx context.Context, coll routing.Collection, old routing.Chunk, pieces []routing.Chunk) error {
	if len(pieces) < 2 || key.Compare(pieces[0].Min, old.Min) != 0 || key.Compare(pieces[len(pieces)-1].Max, old.Max) != 0 {
		return mongoerr.New(mongoerr.InvalidOptions, "split of chunk %s into %d pieces does not cover it", old.Range(), len(pieces))
	}
	docs, err := c.find(ctx, ChunksColl, bson.D{{Key: "uuid", Value: coll.UUID}, {Key: "min", Value: old.Min}})
	if err != nil {
		return err
	}
	var orig bson.D
	for _, d := range docs {
		ch, err := ParseChunk(coll, d)
		if err == nil && key.Compare(ch.Max, old.Max) == 0 && ch.Lastmod.Equal(old.Lastmod) && ch.Shard == old.Shard {
			orig = d
		}
	}
	if orig == nil {
		return changedMeanwhile(coll, old)
	}
	id, _ := bsonx.Get(orig, "_id")
	since, _ := bsonx.Get(orig, "onCurrentShardSince")
	history, _ := bsonx.Get(orig, "history")

	upper := make([]bson.D, 0, len(pieces)-1)
	ids := make(bson.A, 0, len(pieces)-1)
	for _, p := range pieces[1:] {
		nid := bson.NewObjectID()
		d := ChunkDoc(coll, nid, p, coll.Timestamp)
		d = setDocField(d, "onCurrentShardSince", since)
		d = setDocField(d, "history", history)
		upper = append(upper, d)
		ids = append(ids, nid)
	}
	if err := c.insertMany(ctx, ChunksColl, upper); err != nil {
		return err
	}
	reply, err := c.run.Run(ctx, DB, bson.D{
		{Key: "update", Value: ChunksColl},
		{Key: "updates", Value: bson.A{bson.D{
			{Key: "q", Value: bson.D{{Key: "_id", Value: id}, {Key: "lastmod", Value: old.Lastmod.Lastmod()}, {Key: "max", Value: old.Max}}},
			{Key: "u", Value: bson.D{{Key: "$set", Value: bson.D{
				{Key: "max", Value: pieces[0].Max},
				{Key: "lastmod", Value: pieces[0].Lastmod.Lastmod()},
			}}}},
		}}},
		{Key: "writeConcern", Value: majority(ctx)},
	})
	if err == nil {
		err = WriteError(reply)
	}
	if err == nil {
		if n, _ := bsonx.Get(reply, "n"); asInt(n) == 1 {
			return nil
		}
		err = changedMeanwhile(coll, old)
	}
	// Not applied (or not known to be): take the upper pieces out again so
	// old alone covers its range.
	_, _ = c.run.Run(ctx, DB, bson.D{
		{Key: "delete", Value: ChunksColl},
		{Key: "deletes", Value: bson.A{bson.D{{Key: "q", Value: bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: ids}}}}}, {Key: "limit", Value: int32(0)}}}},
		{Key: "writeConcern", Value: majority(ctx)},
	})
	return err
}

func changedMeanwhile(coll routing.Collection, old routing.Chunk) error {
	return mongoerr.New(mongoerr.ConflictingOperationInProgress,
		"chunk %s of %s with version %s changed while it was being split", old.Range(), coll.NS, old.Lastmod)
}

func asInt(v any) int64 {
	n, _ := bsonx.AsInt64(v)
	return n
}

// setDocField returns d with name's value replaced by v (when v is set).
func setDocField(d bson.D, name string, v any) bson.D {
	if v == nil {
		return d
	}
	for i := range d {
		if d[i].Key == name {
			d[i].Value = v
		}
	}
	return d
}
