package shardsvr

import (
	"context"
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/shard/key"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// maxTasks bounds the tasks read at once.
const maxTasks = 10000

// EngineRangeStore keeps the tasks in this member's config.rangeDeletions
// and deletes through the executor. Documents of a range are found with
// the shard key index (rangedeleter_scan.go: an index scan between the
// range's bounds, the hashed index for a hashed key), so a batch costs
// O(batch); only when the collection has no usable index does a batch
// scan the collection from the start. Either way each found document's
// shard key is extracted and checked against the range, and a batch holds
// at most n _ids.
type EngineRangeStore struct {
	Eng *exec.Engine
	// WaitMajority waits until the write at ts is majority committed; nil
	// on a standalone.
	WaitMajority func(ctx context.Context, ts bson.Timestamp) error
}

func (s EngineRangeStore) wait(ctx context.Context, res *exec.WriteResult) error {
	if len(res.Errors) > 0 {
		return res.Errors[0].Err
	}
	if s.WaitMajority == nil || res.Last.TS.IsZero() {
		return nil
	}
	return s.WaitMajority(ctx, res.Last.TS)
}

func idFilter(id any) bson.D { return bson.D{{Key: "_id", Value: id}} }

// InsertTask implements RangeStore.
func (s EngineRangeStore) InsertTask(ctx context.Context, t RangeTask) error {
	return s.wait(ctx, s.Eng.Insert(RangeTasksDB, RangeTasksColl, []bson.D{t.Doc()}, true, nil))
}

// SetProcessing implements RangeStore.
func (s EngineRangeStore) SetProcessing(ctx context.Context, id bson.Binary) error {
	u := bson.D{{Key: "$set", Value: bson.D{{Key: "processing", Value: true}}}}
	return s.wait(ctx, s.Eng.Update(RangeTasksDB, RangeTasksColl, []exec.UpdateStmt{{Q: idFilter(id), U: u}}, true, nil, nil))
}

// AddOrphans implements RangeStore.
func (s EngineRangeStore) AddOrphans(ctx context.Context, id bson.Binary, delta int64) error {
	u := bson.D{{Key: "$inc", Value: bson.D{{Key: "numOrphanDocs", Value: delta}}}}
	return s.wait(ctx, s.Eng.Update(RangeTasksDB, RangeTasksColl, []exec.UpdateStmt{{Q: idFilter(id), U: u}}, true, nil, nil))
}

// DeleteTask implements RangeStore.
func (s EngineRangeStore) DeleteTask(ctx context.Context, id bson.Binary) error {
	return s.wait(ctx, s.Eng.Delete(RangeTasksDB, RangeTasksColl, []exec.DeleteStmt{{Q: idFilter(id), Limit: 1}}, true, nil, nil))
}

// Tasks implements RangeStore.
func (s EngineRangeStore) Tasks(context.Context) ([]RangeTask, error) {
	var out []RangeTask
	err := s.scan(RangeTasksDB, RangeTasksColl, func(d bson.D) bool {
		if t, err := ParseRangeTask(d); err == nil {
			out = append(out, t)
		}
		return len(out) < maxTasks
	})
	return out, err
}

// DeleteBatch implements RangeStore.
func (s EngineRangeStore) DeleteBatch(ctx context.Context, ns string, p key.Pattern, lo, hi bson.D, n int) (int, error) {
	deleted, _, err := s.DeleteBatchFrom(ctx, ns, p, lo, hi, n)
	return deleted, err
}

// DeleteBatchFrom implements RangeResumer.
func (s EngineRangeStore) DeleteBatchFrom(ctx context.Context, ns string, p key.Pattern, from, hi bson.D, n int) (int, bson.D, error) {
	db, coll := splitNS(ns)
	var ids bson.A
	var lastDoc bson.D
	ordered, err := s.rangeDocs(db, coll, p, from, hi, func(d bson.D) bool {
		ids, lastDoc = append(ids, d[0].Value), d
		return len(ids) < n
	})
	if err != nil || len(ids) == 0 {
		return 0, nil, err
	}
	n, res, err := s.deleteMigrated(db, coll, ids)
	if err != nil {
		return 0, nil, err
	}
	var last bson.D
	if ordered {
		last, _ = p.Extract(lastDoc) // in the range, so it has a key
	}
	return n, last, s.wait(ctx, &exec.WriteResult{N: int64(n), Last: res})
}

// deleteMigrated deletes the ids in one batch whose oplog entries are
// marked fromMigrate (catalog.DeleteMigrated): change streams do not
// report a range deletion, as MongoDB's.
func (s EngineRangeStore) deleteMigrated(db, coll string, ids bson.A) (int, catalog.WriteResult, error) {
	cl, err := s.Eng.CollectionForWrite(db, coll)
	if err != nil {
		return 0, catalog.WriteResult{}, err
	}
	return s.Eng.Catalog().DeleteMigrated(cl, ids)
}

// CountRange implements RangeStore.
func (s EngineRangeStore) CountRange(_ context.Context, ns string, p key.Pattern, lo, hi bson.D) (int64, error) {
	db, coll := splitNS(ns)
	var n int64
	_, err := s.rangeDocs(db, coll, p, lo, hi, func(bson.D) bool {
		n++
		return true
	})
	return n, err
}

// rangeDocs calls fn with each document of db.coll whose shard key is in
// [lo, hi) until it returns false: through the shard key index when one
// is usable (in key order: ordered), else (the fallback) by scanning the
// whole collection.
func (s EngineRangeStore) rangeDocs(db, coll string, p key.Pattern, lo, hi bson.D, fn func(bson.D) bool) (ordered bool, err error) {
	inside := func(d bson.D) bool { return !inRange(p, d, lo, hi) || fn(d) }
	col := s.Eng.Catalog().Collection(db, coll)
	if col == nil {
		return false, nil
	}
	if idx := rangeIndex(col, p); idx != nil {
		_, err := scanRange(col, idx, lo, hi, inside)
		return true, err
	}
	return false, s.scan(db, coll, inside)
}

// inRange reports whether d's shard key is in [lo, hi); a document
// without a valid shard key is in no range.
func inRange(p key.Pattern, d bson.D, lo, hi bson.D) bool {
	k, err := p.Extract(d)
	return err == nil && routing.Chunk{Min: lo, Max: hi}.Contains(k)
}

// scan calls fn with each document of db.coll until it returns false.
func (s EngineRangeStore) scan(db, coll string, fn func(bson.D) bool) error {
	it, _, err := s.Eng.Find(db, coll, exec.FindParams{})
	if err != nil {
		return fmt.Errorf("scan %s.%s: %w", db, coll, err)
	}
	defer it.Close()
	for {
		row, ok := it.Next()
		if !ok {
			return it.Err()
		}
		d := row.Doc
		if d == nil {
			if d, err = bsonx.Decode(row.Raw); err != nil {
				return err
			}
		}
		if len(d) > 0 && !fn(d) {
			return nil
		}
	}
}

func splitNS(ns string) (db, coll string) {
	db, coll, _ = strings.Cut(ns, ".")
	return db, coll
}

// ChunkOwner is a RangeDeleterOptions.Owner reading ns's routing table
// fresh from the config servers (and keeping it as the filtering
// metadata).
func (s *State) ChunkOwner(ctx context.Context, ns string) (*routing.ChunkManager, string, error) {
	id, src, err := s.identity(ctx)
	if err != nil {
		return nil, "", err
	}
	e, _, loaded := s.coll(ns)
	meta, err := s.refreshColl(ctx, src, ns, e, loaded)
	if err != nil {
		return nil, "", err
	}
	return meta.Manager(), id.ShardName, nil
}

// WithRanges is what a shard hands the command layer: its sharding state
// and its range deleter (for cleanupOrphaned and
// _shardsvrScheduleRangeDeletion).
type WithRanges struct {
	*State
	Ranges *RangeDeleter
}

// ScheduleRangeDeletion persists a task (see RangeDeleter.Schedule).
func (w WithRanges) ScheduleRangeDeletion(ctx context.Context, ns string, lo, hi bson.D, when string) (bson.Binary, error) {
	t, err := w.Ranges.Schedule(ctx, ns, lo, hi, when)
	return t.ID, err
}

// WaitRangeDeletions waits until ns has no task left.
func (w WithRanges) WaitRangeDeletions(ctx context.Context, ns string) error {
	return w.Ranges.Wait(ctx, ns)
}
