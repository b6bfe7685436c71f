package configsvr

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// maxInsertBatch bounds the documents of one insert of chunks (MongoDB's
// write batch limit).
const maxInsertBatch = 100000

// Collection returns ns's config.collections entry; found is false when
// ns is not sharded.
func (c *Catalog) Collection(ctx context.Context, ns string) (coll routing.Collection, found bool, err error) {
	docs, err := c.find(ctx, CollectionsColl, bson.D{{Key: "_id", Value: ns}})
	if err != nil || len(docs) == 0 {
		return routing.Collection{}, false, err
	}
	coll, err = ParseCollection(docs[0])
	return coll, err == nil, err
}

// RoutingTable reads ns's routing table: its config.collections entry and
// the config.chunks documents of its UUID, both with readConcern majority.
// found is false when ns is not sharded. Chunks that do not tile the key
// space (a concurrent change read half-way) are ConflictingOperationInProgress
// (117), as routing.New reports; the caller refreshes again.
func (c *Catalog) RoutingTable(ctx context.Context, ns string) (m *routing.ChunkManager, found bool, err error) {
	coll, found, err := c.Collection(ctx, ns)
	if err != nil || !found {
		return nil, false, err
	}
	docs, err := c.find(ctx, ChunksColl, bson.D{{Key: "uuid", Value: coll.UUID}})
	if err != nil {
		return nil, false, err
	}
	chunks := make([]routing.Chunk, 0, len(docs))
	for _, d := range docs {
		ch, err := ParseChunk(coll, d)
		if err != nil {
			return nil, false, err
		}
		chunks = append(chunks, ch)
	}
	m, err = routing.New(coll, chunks)
	return m, err == nil, err
}

// CreateShardedCollection writes a newly sharded collection's metadata:
// its chunks into config.chunks, then its config.collections entry, each
// with w:"majority". The entry comes last so that a reader that finds it
// (readConcern majority) finds every chunk too. ns already sharded is
// AlreadyInitialized (23) and leaves the existing metadata alone; the
// chunks written for the losing attempt are removed. This is what the
// router's shardCollection calls (stage 2; the _configsvr* commands will
// move it to the config server primary).
func (c *Catalog) CreateShardedCollection(ctx context.Context, coll routing.Collection, chunks []routing.Chunk) error {
	if _, err := routing.New(coll, chunks); err != nil {
		return err
	}
	docs := make([]bson.D, len(chunks))
	for i, ch := range chunks {
		docs[i] = ChunkDoc(coll, bson.NewObjectID(), ch, coll.Timestamp)
	}
	if err := c.insertMany(ctx, ChunksColl, docs); err != nil {
		return err
	}
	err := c.insert(ctx, CollectionsColl, CollectionDoc(coll, c.now(), false))
	if mongoerr.Is(err, mongoerr.DuplicateKey) {
		_ = c.deleteChunks(ctx, coll.UUID)
		return mongoerr.New(mongoerr.AlreadyInitialized, "collection %s is already sharded", coll.NS)
	}
	return err
}

// insertMany writes docs into config.<coll> in ordered batches with
// w:"majority".
func (c *Catalog) insertMany(ctx context.Context, coll string, docs []bson.D) error {
	for len(docs) > 0 {
		n := min(len(docs), maxInsertBatch)
		arr := make(bson.A, n)
		for i := range n {
			arr[i] = docs[i]
		}
		reply, err := c.run.Run(ctx, DB, bson.D{
			{Key: "insert", Value: coll}, {Key: "documents", Value: arr},
			{Key: "writeConcern", Value: majority(ctx)},
		})
		if err == nil {
			err = WriteError(reply)
		}
		if err != nil {
			return err
		}
		docs = docs[n:]
	}
	return nil
}

// deleteChunks removes every config.chunks document of uuid (majority).
func (c *Catalog) deleteChunks(ctx context.Context, uuid bson.Binary) error {
	reply, err := c.run.Run(ctx, DB, bson.D{
		{Key: "delete", Value: ChunksColl},
		{Key: "deletes", Value: bson.A{bson.D{{Key: "q", Value: bson.D{{Key: "uuid", Value: uuid}}}, {Key: "limit", Value: int32(0)}}}},
		{Key: "writeConcern", Value: majority(ctx)},
	})
	if err != nil {
		return err
	}
	return WriteError(reply)
}
