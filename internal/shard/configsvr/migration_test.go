package configsvr

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/key"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// eqConfig is an in-memory config server for the chunk operations: find
// and update match top-level fields by equality, update applies $set;
// every write must carry w:"majority". onUpdate, when set, runs before
// each update (a concurrent writer).
type eqConfig struct {
	t        *testing.T
	colls    map[string][]bson.D
	updates  int
	onUpdate func(n int)
}

func (m *eqConfig) Run(_ context.Context, db string, cmd bson.D) (bson.D, error) {
	coll, _ := cmd[0].Value.(string)
	if cmd[0].Key != "find" {
		wc, _ := bsonx.Get(cmd, "writeConcern")
		if w, _ := bsonx.Get(wc.(bson.D), "w"); w != "majority" {
			m.t.Errorf("%s without w:majority: %v", cmd[0].Key, wc)
		}
	}
	switch cmd[0].Key {
	case "find":
		f, _ := bsonx.Get(cmd, "filter")
		arr := bson.A{}
		for _, d := range m.colls[coll] {
			if eqMatch(d, f.(bson.D)) {
				arr = append(arr, d)
			}
		}
		return bson.D{{Key: "cursor", Value: bson.D{{Key: "id", Value: int64(0)}, {Key: "firstBatch", Value: arr}}}, {Key: "ok", Value: 1.0}}, nil
	case "update":
		m.updates++
		if m.onUpdate != nil {
			m.onUpdate(m.updates)
		}
		ups, _ := bsonx.Get(cmd, "updates")
		u := ups.(bson.A)[0].(bson.D)
		q, _ := bsonx.Get(u, "q")
		mod, _ := bsonx.Get(u, "u")
		set, _ := bsonx.Get(mod.(bson.D), "$set")
		n := int32(0)
		for i, d := range m.colls[coll] {
			if n == 0 && eqMatch(d, q.(bson.D)) {
				for _, e := range set.(bson.D) {
					m.colls[coll][i] = setField(m.colls[coll][i], e.Key, e.Value)
				}
				n = 1
			}
		}
		return bson.D{{Key: "n", Value: n}, {Key: "ok", Value: 1.0}}, nil
	}
	return nil, fmt.Errorf("unexpected %v", cmd)
}

func eqMatch(d, filter bson.D) bool {
	for _, e := range filter {
		v, _ := bsonx.Get(d, e.Key)
		if !reflect.DeepEqual(v, e.Value) {
			return false
		}
	}
	return true
}

func setField(d bson.D, k string, v any) bson.D {
	out := append(bson.D(nil), d...)
	for i := range out {
		if out[i].Key == k {
			out[i].Value = v
			return out
		}
	}
	return append(out, bson.E{Key: k, Value: v})
}

var (
	minK = bson.D{{Key: "x", Value: bson.MinKey{}}}
	midK = bson.D{{Key: "x", Value: int32(0)}}
	maxK = bson.D{{Key: "x", Value: bson.MaxKey{}}}
)

// twoChunks is a collection sharded on x with [MinKey, 0) at 1|1 and
// [0, MaxKey) at 1|2, both on sh0, and shards sh0 and sh1.
func twoChunks(t *testing.T) (*eqConfig, routing.Collection) {
	p, err := key.Parse(bson.D{{Key: "x", Value: int32(1)}})
	if err != nil {
		t.Fatal(err)
	}
	coll := NewCollection("db.c", p, false, time.Unix(1700000000, 0))
	v := routing.ChunkVersion{Epoch: coll.Epoch, Timestamp: coll.Timestamp, Major: 1}
	m := &eqConfig{t: t, colls: map[string][]bson.D{
		ShardsColl:      {Shard{ID: "sh0", Host: "sh0/h:1", State: 1}.Doc(), Shard{ID: "sh1", Host: "sh1/h:2", State: 1}.Doc()},
		CollectionsColl: {CollectionDoc(coll, time.Now(), false)},
		ChunksColl: {
			ChunkDoc(coll, bson.NewObjectID(), routing.Chunk{Min: minK, Max: midK, Shard: "sh0", Lastmod: v.IncMinor()}, coll.Timestamp),
			ChunkDoc(coll, bson.NewObjectID(), routing.Chunk{Min: midK, Max: maxK, Shard: "sh0", Lastmod: v.IncMinor().IncMinor()}, coll.Timestamp),
		},
	}}
	return m, coll
}

func chunkAt(t *testing.T, c *Catalog, lo bson.D) routing.Chunk {
	t.Helper()
	m, _, err := c.RoutingTable(context.Background(), "db.c")
	if err != nil {
		t.Fatal(err)
	}
	ch, err := m.FindChunk(lo)
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

func TestCommitChunkMigration(t *testing.T) {
	ctx := context.Background()
	mem, coll := twoChunks(t)
	c := NewCatalog(mem)
	moved := chunkAt(t, c, midK) // 1|2 on sh0
	got, err := c.CommitChunkMigration(ctx, "db.c", moved, "sh0", "sh1", moved.Lastmod)
	if err != nil {
		t.Fatal(err)
	}
	after, control := chunkAt(t, c, midK), chunkAt(t, c, minK)
	if after.Shard != "sh1" || after.Lastmod.Major != 2 || after.Lastmod.Minor != 0 {
		t.Fatalf("migrated chunk = %+v, want sh1 at 2|0", after)
	}
	if control.Shard != "sh0" || control.Lastmod.Major != 2 || control.Lastmod.Minor != 1 {
		t.Fatalf("control chunk = %+v, want sh0 at 2|1", control)
	}
	if !got.Shard.Equal(control.Lastmod) || !got.Collection.Equal(control.Lastmod) {
		t.Fatalf("answer %+v, want donor and collection at the control chunk's %s", got, control.Lastmod)
	}
	if owner, err := c.ChunkOwner(ctx, "db.c", bson.D{{Key: "x", Value: int32(5)}}); err != nil || owner != "sh1" {
		t.Fatalf("ChunkOwner = %q, %v", owner, err)
	}
	if n := len(mem.colls[ChunksColl]); n != 2 {
		t.Fatalf("%d chunk documents, want 2", n)
	}
	// The same commit again is answered with the current versions and
	// changes nothing (MongoDB: "the commit was already done").
	writes := mem.updates
	again, err := c.CommitChunkMigration(ctx, "db.c", moved, "sh0", "sh1", moved.Lastmod)
	if err != nil || mem.updates != writes || !again.Collection.Equal(got.Collection) {
		t.Fatalf("retried commit: %+v %v (%d writes)", again, err, mem.updates-writes)
	}
	// Moving it back with the version it had before is refused.
	_, err = c.CommitChunkMigration(ctx, "db.c", moved, "sh1", "sh0", moved.Lastmod)
	if !mongoerr.Is(err, mongoerr.ConflictingOperationInProgress) {
		t.Fatalf("stale commit: %v", err)
	}
	// The donor's last chunk: no control chunk, the donor's version is 0|0.
	last := chunkAt(t, c, minK)
	got, err = c.CommitChunkMigration(ctx, "db.c", last, "sh0", "sh1", last.Lastmod)
	if err != nil || got.Shard.IsSet() || got.Collection.Major != 3 || got.Collection.Minor != 0 {
		t.Fatalf("last chunk moved: %+v %v", got, err)
	}
	_ = coll
}

func TestCommitChunkMigrationRefusals(t *testing.T) {
	ctx := context.Background()
	mem, coll := twoChunks(t)
	c := NewCatalog(mem)
	moved := chunkAt(t, c, midK)
	other := coll
	other.Epoch = bson.NewObjectID()
	otherV := routing.ChunkVersion{Epoch: other.Epoch, Timestamp: other.Timestamp, Major: 1}
	half := moved
	half.Max = bson.D{{Key: "x", Value: int32(10)}}
	unset := moved
	unset.Lastmod = routing.ChunkVersion{Epoch: coll.Epoch, Timestamp: coll.Timestamp}
	tests := []struct {
		name     string
		ns       string
		chunk    routing.Chunk
		from, to string
		coll     routing.ChunkVersion
		code     mongoerr.Code
	}{
		{"unknown recipient", "db.c", moved, "sh0", "sh9", moved.Lastmod, mongoerr.ShardNotFound},
		{"not sharded", "db.none", moved, "sh0", "sh1", moved.Lastmod, mongoerr.ConflictingOperationInProgress},
		{"other generation", "db.c", moved, "sh0", "sh1", otherV, mongoerr.StaleEpoch},
		{"no version", "db.c", unset, "sh0", "sh1", moved.Lastmod, mongoerr.MigrationChunkNoVersion},
		{"on neither shard", "db.c", moved, "sh2", "sh1", moved.Lastmod, mongoerr.MigrationChunkOwnedByNeither},
		{"part of a chunk", "db.c", half, "sh0", "sh1", moved.Lastmod, mongoerr.IllegalOperation},
		{"no covering chunk", "db.c", routing.Chunk{Min: midK, Max: midK, Lastmod: moved.Lastmod}, "sh0", "sh1", moved.Lastmod, mongoerr.MigrationChunkNotFound},
	}
	for _, tt := range tests {
		_, err := c.CommitChunkMigration(ctx, tt.ns, tt.chunk, tt.from, tt.to, tt.coll)
		if !mongoerr.Is(err, tt.code) {
			t.Errorf("%s: %v, want code %d", tt.name, err, tt.code)
		}
	}
	if mem.updates != 0 {
		t.Fatalf("refused commits wrote %d times", mem.updates)
	}
	// A split landing between the read and the write: the compare-and-swap
	// fails and nothing moved.
	mem.onUpdate = func(int) {
		for i, d := range mem.colls[ChunksColl] {
			mem.colls[ChunksColl][i] = setField(d, "lastmod", bson.Timestamp{T: 1, I: 9})
		}
		mem.onUpdate = nil
	}
	if _, err := c.CommitChunkMigration(ctx, "db.c", moved, "sh0", "sh1", moved.Lastmod); !mongoerr.Is(err, mongoerr.ConflictingOperationInProgress) {
		t.Fatalf("concurrent change: %v", err)
	}
	if ch := chunkAt(t, c, midK); ch.Shard != "sh0" {
		t.Fatalf("chunk moved despite the concurrent change: %+v", ch)
	}
}

func TestEnsureChunkVersionIsGreaterThan(t *testing.T) {
	ctx := context.Background()
	mem, coll := twoChunks(t)
	c := NewCatalog(mem)
	moved := chunkAt(t, c, midK) // 1|2, the collection version
	if err := c.EnsureChunkVersionIsGreaterThan(ctx, coll.UUID, midK, maxK, moved.Lastmod); err != nil {
		t.Fatal(err)
	}
	fenced := chunkAt(t, c, midK)
	if fenced.Shard != "sh0" || fenced.Lastmod.Major != 2 || fenced.Lastmod.Minor != 0 {
		t.Fatalf("fenced chunk = %+v, want sh0 at 2|0", fenced)
	}
	// A commit carrying the version from before the fence is refused.
	if _, err := c.CommitChunkMigration(ctx, "db.c", moved, "sh0", "sh1", moved.Lastmod); !mongoerr.Is(err, mongoerr.ConflictingOperationInProgress) {
		t.Fatalf("commit after the fence: %v", err)
	}
	// Already greater, another generation, a range that is no chunk, an
	// unknown collection: success without a write.
	writes := mem.updates
	other := moved.Lastmod
	other.Epoch = bson.NewObjectID()
	for _, call := range []func() error{
		func() error { return c.EnsureChunkVersionIsGreaterThan(ctx, coll.UUID, midK, maxK, moved.Lastmod) },
		func() error { return c.EnsureChunkVersionIsGreaterThan(ctx, coll.UUID, midK, maxK, other) },
		func() error { return c.EnsureChunkVersionIsGreaterThan(ctx, coll.UUID, minK, maxK, fenced.Lastmod) },
		func() error { return c.EnsureChunkVersionIsGreaterThan(ctx, newUUID(), midK, maxK, fenced.Lastmod) },
	} {
		if err := call(); err != nil {
			t.Fatal(err)
		}
	}
	if mem.updates != writes {
		t.Fatalf("no-op fences wrote %d times", mem.updates-writes)
	}
	// The fenced version itself is bumped again past the collection version.
	if err := c.EnsureChunkVersionIsGreaterThan(ctx, coll.UUID, midK, maxK, fenced.Lastmod); err != nil {
		t.Fatal(err)
	}
	if got := chunkAt(t, c, midK).Lastmod; got.Major != 3 || got.Minor != 0 {
		t.Fatalf("second fence: %s, want 3|0", got)
	}
}

// TestCommitChunkMigrationControlChanged: the control chunk changes
// between the read and its bump (a split on a router): the migration
// stands and the answer is the donor's version as the config servers hold
// it, not 0|0.
func TestCommitChunkMigrationControlChanged(t *testing.T) {
	mem, _ := twoChunks(t)
	c := NewCatalog(mem)
	moved := chunkAt(t, c, midK)
	mem.onUpdate = func(n int) {
		if n == 2 { // before the control chunk's update
			for i, d := range mem.colls[ChunksColl] {
				if lo, _ := bsonx.Get(d, "min"); reflect.DeepEqual(lo, minK) {
					mem.colls[ChunksColl][i] = setField(d, "lastmod", bson.Timestamp{T: 2, I: 5})
				}
			}
		}
	}
	got, err := c.CommitChunkMigration(context.Background(), "db.c", moved, "sh0", "sh1", moved.Lastmod)
	if err != nil {
		t.Fatal(err)
	}
	if ch := chunkAt(t, c, midK); ch.Shard != "sh1" {
		t.Fatalf("migrated chunk on %s", ch.Shard)
	}
	if got.Shard.Major != 2 || got.Shard.Minor != 5 || !got.Collection.Equal(got.Shard) {
		t.Fatalf("answer %+v, want the donor's 2|5 as stored", got)
	}
}
