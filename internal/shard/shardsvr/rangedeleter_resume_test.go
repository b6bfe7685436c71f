package shardsvr

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/shard/key"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// behindStore is the engine's store recording where each batch started;
// during its third batch a document is written at the range's start,
// behind the batches' cursor.
type behindStore struct {
	EngineRangeStore
	froms []bson.D
}

func (b *behindStore) DeleteBatchFrom(ctx context.Context, ns string, p key.Pattern, from, hi bson.D, n int) (int, bson.D, error) {
	b.froms = append(b.froms, from)
	if len(b.froms) == 3 {
		if res := b.Eng.Insert("db", "c", []bson.D{{{Key: "_id", Value: "behind"}, {Key: "x", Value: int32(-3000)}}}, true, nil); len(res.Errors) > 0 {
			return 0, nil, res.Errors[0].Err
		}
	}
	return b.EngineRangeStore.DeleteBatchFrom(ctx, ns, p, from, hi, n)
}

// engineDeleter is a deleter on shard sh1 (which owns [0, MaxKey) of db.c
// sharded on {x: 1}) over store.
func engineDeleter(t *testing.T, store RangeStore) *RangeDeleter {
	cm := table(t, "sh1")
	return NewRangeDeleter(RangeDeleterOptions{
		Store:     store,
		Owner:     func(context.Context, string) (*routing.ChunkManager, string, error) { return cm, "sh1", nil },
		IsPrimary: func() bool { return true },
		Sleep:     func(context.Context, time.Duration) error { return nil },
	})
}

// TestRangeDeleterResumes: through the shard key index each batch starts
// at the key the previous one ended at; a document written behind the
// cursor is deleted by the last pass from the range's start; the owned
// documents stay. Without the index (collection scan) every batch starts
// at the range's start and the task deletes the same documents.
func TestRangeDeleterResumes(t *testing.T) {
	setParam(t, "rangeDeleterBatchSize", 100)
	docs := make([]bson.D, 6000)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "x", Value: int32(i - 3000)}}
	}
	for _, withIndex := range []bool{true, false} {
		var specs []bson.D
		if withIndex {
			specs = []bson.D{spec("x_1", bson.D{{Key: "x", Value: 1}})}
		}
		e, _ := scanEngine(t, specs, docs)
		store := &behindStore{EngineRangeStore: EngineRangeStore{Eng: e}}
		rd := engineDeleter(t, store)
		ctx := context.Background()
		if _, err := rd.Schedule(ctx, "db.c", xKey(int32(-3000)), xKey(int32(0)), "now"); err != nil {
			t.Fatal(err)
		}
		if n := rd.runDue(ctx); n != 1 {
			t.Fatalf("index %v: %d tasks ended", withIndex, n)
		}
		left, err := e.Count("db", "c", nil, 0, 0, nil)
		if err != nil || left != 3000 {
			t.Fatalf("index %v: %d documents left (%v), want the 3000 owned", withIndex, left, err)
		}
		if n, _ := e.Count("db", "c", bson.D{{Key: "x", Value: bson.D{{Key: "$lt", Value: 0}}}}, 0, 0, nil); n != 0 {
			t.Fatalf("index %v: %d documents of the range left", withIndex, n)
		}
		fromMin := 0
		for _, f := range store.froms {
			if key.Compare(f, xKey(int32(-3000))) == 0 {
				fromMin++
			}
		}
		// With the index: 30 batches of 100, each from the last key of the
		// one before; one from -1 finding nothing; a pass from the start
		// finding the document written behind (at the range's start), and
		// a batch from its key, the start again, finding nothing: done.
		if withIndex && (fromMin != 3 || len(store.froms) != 33) {
			t.Fatalf("batches started at %v", store.froms)
		}
		if !withIndex && fromMin != len(store.froms) {
			t.Fatalf("without the index a batch resumed: %v", store.froms)
		}
	}
}
