package shardsvr

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/configsvr"
	"github.com/relaydb/relaydb/internal/shard/key"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// memSource is the config servers' metadata in memory, counting reads.
type memSource struct {
	mu     sync.Mutex
	tables map[string]*routing.ChunkManager
	dbs    map[string]configsvr.Database
	reads  atomic.Int32
}

func (m *memSource) RoutingTable(_ context.Context, ns string) (*routing.ChunkManager, bool, error) {
	m.reads.Add(1)
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.tables[ns]
	return t, ok, nil
}

func (m *memSource) Database(_ context.Context, name string) (configsvr.Database, bool, error) {
	m.reads.Add(1)
	m.mu.Lock()
	defer m.mu.Unlock()
	d, ok := m.dbs[name]
	return d, ok, nil
}

func (m *memSource) RouterHosts(context.Context, int) ([]string, error) { return nil, nil }

func (m *memSource) set(ns string, t *routing.ChunkManager) {
	m.mu.Lock()
	m.tables[ns] = t
	m.mu.Unlock()
}

// table is db.c on key {x: 1} split at x: 0: [MinKey, 0) on sh0 at 1|0,
// [0, MaxKey) on shard right at 1|1.
func table(t *testing.T, right string) *routing.ChunkManager {
	t.Helper()
	coll := routing.Collection{NS: "db.c", Key: key.MustParse(bson.D{{Key: "x", Value: 1}}), Epoch: epoch, Timestamp: ts,
		UUID: bson.Binary{Subtype: 4, Data: make([]byte, 16)}}
	m, err := routing.New(coll, []routing.Chunk{
		{Min: bson.D{{Key: "x", Value: bson.MinKey{}}}, Max: bson.D{{Key: "x", Value: 0}}, Shard: "sh0", Lastmod: ver(1, 0)},
		{Min: bson.D{{Key: "x", Value: 0}}, Max: bson.D{{Key: "x", Value: bson.MaxKey{}}}, Shard: right, Lastmod: ver(1, 1)},
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func newState(src *memSource, identity bool) *State {
	return New(Options{
		Identity: func(context.Context) (configsvr.ShardIdentity, bool, error) {
			return configsvr.ShardIdentity{ShardName: "sh0", ConfigsvrConnectionString: "cfg/h:1"}, identity, nil
		},
		Connect: func(string) Source { return src },
	})
}

func find(v routing.ChunkVersion) bson.D {
	return bson.D{{Key: "find", Value: "c"}, {Key: "shardVersion", Value: ShardVersionDoc(v)}}
}

func TestCheckShardVersion(t *testing.T) {
	ctx := context.Background()
	src := &memSource{tables: map[string]*routing.ChunkManager{"db.c": table(t, "sh0")}, dbs: map[string]configsvr.Database{}}
	s := newState(src, true)
	// sh0 owns both chunks: its placement version is 1|1; 1|0 differs only
	// in minor and is served. Loaded once on first use.
	for _, v := range []routing.ChunkVersion{ver(1, 1), ver(1, 0)} {
		if err := s.CheckShardVersion(ctx, "db", find(v)); err != nil {
			t.Fatalf("received %s: %v", v, err)
		}
	}
	if n := src.reads.Load(); n != 1 {
		t.Fatalf("%d reads of the config servers, want 1", n)
	}
	// A migration moved [0, MaxKey) to sh1 at 2|0 and left sh0 at 2|1.
	moved := ver(2, 1)
	coll := table(t, "sh1").Collection()
	m, err := routing.New(coll, []routing.Chunk{
		{Min: bson.D{{Key: "x", Value: bson.MinKey{}}}, Max: bson.D{{Key: "x", Value: 0}}, Shard: "sh0", Lastmod: moved},
		{Min: bson.D{{Key: "x", Value: 0}}, Max: bson.D{{Key: "x", Value: bson.MaxKey{}}}, Shard: "sh1", Lastmod: ver(2, 0)},
	})
	if err != nil {
		t.Fatal(err)
	}
	src.set("db.c", m)
	// A router that knows it: the shard refreshes once and serves.
	if err := s.CheckShardVersion(ctx, "db", find(moved)); err != nil {
		t.Fatalf("newer version: %v", err)
	}
	// A router that does not: StaleConfig with MongoDB's StaleConfigInfo.
	err = s.CheckShardVersion(ctx, "db", find(ver(1, 1)))
	want := bson.D{
		{Key: "ns", Value: "db.c"},
		{Key: "vReceived", Value: bson.D{{Key: "e", Value: epoch}, {Key: "t", Value: ts}, {Key: "v", Value: bson.Timestamp{T: 1, I: 1}}}},
		{Key: "vWanted", Value: bson.D{{Key: "e", Value: epoch}, {Key: "t", Value: ts}, {Key: "v", Value: bson.Timestamp{T: 2, I: 1}}}},
		{Key: "shardId", Value: "sh0"},
	}
	checkStale(t, err, StaleConfig, want)
	if msg := mongoerr.From(err).Msg; msg != "placement version mismatch detected for db.c" {
		t.Errorf("errmsg %q", msg)
	}
	// UNSHARDED for a sharded collection is stale too; IGNORED passes.
	err = s.CheckShardVersion(ctx, "db", find(Unsharded))
	checkStale(t, err, StaleConfig, nil)
	if msg := mongoerr.From(err).Msg; msg != "timestamp mismatch detected for db.c" {
		t.Errorf("errmsg %q", msg)
	}
	if err := s.CheckShardVersion(ctx, "db", find(Ignored)); err != nil {
		t.Fatalf("IGNORED: %v", err)
	}
	// An unsharded collection wants UNSHARDED.
	if err := s.CheckShardVersion(ctx, "db", bson.D{{Key: "find", Value: "u"}, {Key: "shardVersion", Value: ShardVersionDoc(Unsharded)}}); err != nil {
		t.Fatalf("unsharded: %v", err)
	}
	err = s.CheckShardVersion(ctx, "db", bson.D{{Key: "find", Value: "u"}, {Key: "shardVersion", Value: ShardVersionDoc(ver(1, 0))}})
	checkStale(t, err, StaleConfig, bson.D{
		{Key: "ns", Value: "db.u"},
		{Key: "vReceived", Value: ShardVersionDoc(ver(1, 0))},
		{Key: "vWanted", Value: ShardVersionDoc(Unsharded)},
		{Key: "shardId", Value: "sh0"},
	})
	// Unversioned requests are not checked at all.
	if err := s.CheckShardVersion(ctx, "db", bson.D{{Key: "find", Value: "c"}}); err != nil {
		t.Fatal(err)
	}
}

func TestNoShardIdentity(t *testing.T) {
	s := newState(&memSource{}, false)
	err := s.CheckShardVersion(context.Background(), "db", find(ver(1, 0)))
	if !mongoerr.Is(err, ShardingStateNotInitialized) || int32(ShardingStateNotInitialized) != 203 {
		t.Fatalf("err %v", err)
	}
	if err := s.CheckShardVersion(context.Background(), "db", bson.D{{Key: "find", Value: "c"}}); err != nil {
		t.Fatalf("unversioned request: %v", err)
	}
}

func TestConcurrentStaleRequestsRefreshOnce(t *testing.T) {
	src := &memSource{tables: map[string]*routing.ChunkManager{"db.c": table(t, "sh0")}}
	s := newState(src, true)
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = s.CheckShardVersion(context.Background(), "db", find(ver(1, 1)))
		}()
	}
	wg.Wait()
	if n := src.reads.Load(); n != 1 {
		t.Fatalf("%d reads for 16 concurrent first requests, want 1", n)
	}
}

func TestDatabaseVersion(t *testing.T) {
	ctx := context.Background()
	cur := configsvr.NewDatabase("db", "sh0", fixedTime)
	src := &memSource{tables: map[string]*routing.ChunkManager{}, dbs: map[string]configsvr.Database{"db": cur, "elsewhere": configsvr.NewDatabase("elsewhere", "sh1", fixedTime)}}
	s := newState(src, true)
	withDV := func(db string, v configsvr.DatabaseVersion) bson.D {
		return bson.D{{Key: "find", Value: "c"}, {Key: "shardVersion", Value: ShardVersionDoc(Unsharded)}, {Key: "databaseVersion", Value: v.Doc()}}
	}
	if err := s.CheckShardVersion(ctx, "db", withDV("db", cur.Version)); err != nil {
		t.Fatalf("current database version: %v", err)
	}
	old := cur.Version
	old.LastMod = 0
	checkStale(t, s.CheckShardVersion(ctx, "db", withDV("db", old)), StaleDbVersion, bson.D{
		{Key: "db", Value: "db"}, {Key: "vReceived", Value: old.Doc()}, {Key: "vWanted", Value: cur.Version.Doc()},
	})
	// Not this shard's database: no vWanted.
	other := src.dbs["elsewhere"].Version
	checkStale(t, s.CheckShardVersion(ctx, "elsewhere", withDV("elsewhere", other)), StaleDbVersion, bson.D{
		{Key: "db", Value: "elsewhere"}, {Key: "vReceived", Value: other.Doc()},
	})
}

// checkStale checks err's code and, when want is not nil, its extra info.
func checkStale(t *testing.T, err error, code mongoerr.Code, want bson.D) {
	t.Helper()
	if !mongoerr.Is(err, code) {
		t.Fatalf("err %v, want code %d", err, code)
	}
	e, ok := err.(*Error)
	if !ok {
		t.Fatalf("%T carries no extra info", err)
	}
	if want == nil {
		return
	}
	got, _ := bson.MarshalExtJSON(e.ExtraInfo(), true, false)
	w, _ := bson.MarshalExtJSON(want, true, false)
	if string(got) != string(w) {
		t.Fatalf("extra info\n got %s\nwant %s", got, w)
	}
}

func TestParseStaleConfigInfo(t *testing.T) {
	wanted := ver(2, 1)
	e := staleConfig("db.c", ver(1, 1), &wanted, "sh0")
	reply := append(bson.D{{Key: "ok", Value: 0.0}, {Key: "code", Value: int32(13388)}}, e.ExtraInfo()...)
	info, ok := ParseStaleConfigInfo(reply)
	if !ok || info.NS != "db.c" || info.ShardID != "sh0" || info.Received != ver(1, 1) || info.Wanted == nil || *info.Wanted != wanted {
		t.Fatalf("parsed %+v %v", info, ok)
	}
	info, ok = ParseStaleConfigInfo(staleConfig("db.c", ver(1, 1), nil, "sh0").ExtraInfo())
	if !ok || info.Wanted != nil {
		t.Fatalf("without vWanted: %+v %v", info, ok)
	}
	if _, ok := ParseStaleConfigInfo(bson.D{{Key: "ns", Value: "db.c"}}); ok {
		t.Fatal("accepted an incomplete info")
	}
}
