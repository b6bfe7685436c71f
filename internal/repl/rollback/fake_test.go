package rollback

import (
	"context"
	"fmt"
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/catalog"
)

// fakeSource serves a catalog as a sync source: find/getMore on
// local.oplog.rs ({ts: {$lte}} filter, newest first) and find by _id.
type fakeSource struct {
	cat      *catalog.Catalog
	maxBatch int // caps every batch, to exercise getMore (0 = batchSize)

	mu      sync.Mutex
	cursors map[int64]bson.A
	nextID  int64
	refetch int // finds by _id served
}

func (f *fakeSource) Run(_ context.Context, db string, cmd bson.D) (bson.D, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch cmd[0].Key {
	case "find":
		coll, _ := cmd[0].Value.(string)
		if db == "local" && coll == "oplog.rs" {
			return f.findOplog(cmd)
		}
		return f.findByID(db, coll, cmd)
	case "getMore":
		id, _ := cmd[0].Value.(int64)
		return f.batch(id, f.cursors[id], batchOf(cmd), "nextBatch"), nil
	case "killCursors":
		return bson.D{{Key: "ok", Value: 1.0}}, nil
	}
	return nil, fmt.Errorf("fake source: unsupported command %v", cmd[0].Key)
}

func batchOf(cmd bson.D) int {
	v, _ := bsonx.Get(cmd, "batchSize")
	n, _ := bsonx.AsInt64(v)
	return int(n)
}

func (f *fakeSource) findOplog(cmd bson.D) (bson.D, error) {
	raws, err := f.cat.Oplog().ReadReverse(bson.Timestamp{}, 0)
	if err != nil {
		return nil, err
	}
	filter, _ := bsonx.Get(cmd, "filter")
	lte, hasBound := bsonx.GetPath(asD(filter), "ts.$lte")
	limit, _ := bsonx.Get(cmd, "limit")
	lim, _ := bsonx.AsInt64(limit)
	var docs bson.A
	for _, raw := range raws {
		doc, err := bsonx.Decode(raw)
		if err != nil {
			return nil, err
		}
		ts, _ := bsonx.Get(doc, "ts")
		if hasBound && ts.(bson.Timestamp).After(lte.(bson.Timestamp)) {
			continue
		}
		if docs = append(docs, doc); lim > 0 && int64(len(docs)) == lim {
			break
		}
	}
	f.nextID++
	return f.batch(f.nextID, docs, batchOf(cmd), "firstBatch"), nil
}

func asD(v any) bson.D {
	d, _ := v.(bson.D)
	return d
}

// batch returns the first n of docs as a cursor reply, keeping the rest
// under id (0 when none is left).
func (f *fakeSource) batch(id int64, docs bson.A, n int, field string) bson.D {
	if f.maxBatch > 0 && (n <= 0 || n > f.maxBatch) {
		n = f.maxBatch
	}
	if n <= 0 || n > len(docs) {
		n = len(docs)
	}
	if f.cursors == nil {
		f.cursors = map[int64]bson.A{}
	}
	f.cursors[id] = docs[n:]
	if len(docs[n:]) == 0 {
		delete(f.cursors, id)
		id = 0
	}
	return bson.D{{Key: "cursor", Value: bson.D{{Key: "id", Value: id},
		{Key: "ns", Value: "x.y"}, {Key: field, Value: docs[:n]}}}, {Key: "ok", Value: 1.0}}
}

func (f *fakeSource) findByID(db, name string, cmd bson.D) (bson.D, error) {
	filter, _ := bsonx.Get(cmd, "filter")
	id, ok := bsonx.GetPath(asD(filter), "_id.$eq")
	if !ok {
		return nil, fmt.Errorf("fake source: find %s.%s: unsupported filter %v", db, name, filter)
	}
	f.refetch++
	var docs bson.A
	doc, found, err := f.cat.DocByID(db, name, id)
	if err != nil {
		return nil, err
	}
	if found {
		docs = append(docs, doc)
	}
	return f.batch(0, docs, 0, "firstBatch"), nil
}
