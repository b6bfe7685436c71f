package configsvr

import (
	"context"
	"encoding/hex"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/key"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

func mustUUID(s string) bson.Binary {
	b, err := hex.DecodeString(strings.ReplaceAll(s, "-", ""))
	if err != nil {
		panic(err)
	}
	return bson.Binary{Subtype: bson.TypeBinaryUUID, Data: b}
}

func mustOID(s string) bson.ObjectID {
	id, err := bson.ObjectIDFromHex(s)
	if err != nil {
		panic(err)
	}
	return id
}

// The config.collections example MongoDB's documentation gives for 5.0+
// (DOCS-14450), as a shard or router reads it.
var goldenCollection = bson.D{
	{Key: "_id", Value: "nameOfTheDatabase.nameOfTheCollection"},
	{Key: "lastmodEpoch", Value: mustOID("60f989a2430bfdd95d8cfa20")},
	{Key: "lastmod", Value: bson.NewDateTimeFromTime(time.Date(2021, 7, 22, 15, 7, 14, 301e6, time.UTC))},
	{Key: "timestamp", Value: bson.Timestamp{T: 1626966434, I: 13}},
	{Key: "uuid", Value: mustUUID("c88e9237-ae8b-452e-9d89-bcdcaaa763db")},
	{Key: "key", Value: bson.D{{Key: "num", Value: int32(1)}}},
	{Key: "unique", Value: false},
	{Key: "noBalance", Value: false},
}

// A config.chunks document of that collection in 7.0's shape.
var goldenChunk = bson.D{
	{Key: "_id", Value: mustOID("60f989a2f1a1c3d4e5f60718")},
	{Key: "uuid", Value: mustUUID("c88e9237-ae8b-452e-9d89-bcdcaaa763db")},
	{Key: "min", Value: bson.D{{Key: "num", Value: bson.MinKey{}}}},
	{Key: "max", Value: bson.D{{Key: "num", Value: bson.MaxKey{}}}},
	{Key: "shard", Value: "shard3-rs1"},
	{Key: "lastmod", Value: bson.Timestamp{T: 1, I: 0}},
	{Key: "onCurrentShardSince", Value: bson.Timestamp{T: 1626966434, I: 13}},
	{Key: "history", Value: bson.A{bson.D{{Key: "validAfter", Value: bson.Timestamp{T: 1626966434, I: 13}}, {Key: "shard", Value: "shard3-rs1"}}}},
}

func TestGoldenCollectionAndChunk(t *testing.T) {
	coll, err := ParseCollection(goldenCollection)
	if err != nil {
		t.Fatal(err)
	}
	if coll.NS != "nameOfTheDatabase.nameOfTheCollection" || coll.Key.String() != "{ num: 1 }" || coll.Unique ||
		coll.Epoch.Hex() != "60f989a2430bfdd95d8cfa20" || coll.Timestamp != (bson.Timestamp{T: 1626966434, I: 13}) {
		t.Fatalf("parsed %+v", coll)
	}
	lastmod := time.Date(2021, 7, 22, 15, 7, 14, 301e6, time.UTC)
	if got := CollectionDoc(coll, lastmod, false); !sameBSON(got, goldenCollection) {
		t.Fatalf("CollectionDoc:\n got %v\nwant %v", got, goldenCollection)
	}
	ch, err := ParseChunk(coll, goldenChunk)
	if err != nil {
		t.Fatal(err)
	}
	if ch.Shard != "shard3-rs1" || ch.Lastmod.String() != "1|0||60f989a2430bfdd95d8cfa20||Timestamp(1626966434, 13)" {
		t.Fatalf("chunk %+v (%s)", ch, ch.Lastmod)
	}
	id, _ := bsonx.Get(goldenChunk, "_id")
	if got := ChunkDoc(coll, id.(bson.ObjectID), ch, coll.Timestamp); !sameBSON(got, goldenChunk) {
		t.Fatalf("ChunkDoc:\n got %v\nwant %v", got, goldenChunk)
	}
	other := coll
	other.UUID = mustUUID("00000000-0000-4000-8000-000000000000")
	if _, err := ParseChunk(other, goldenChunk); err == nil {
		t.Fatal("a chunk of another collection's uuid was accepted")
	}
	for _, drop := range []string{"lastmodEpoch", "timestamp", "uuid", "key"} {
		if _, err := ParseCollection(without(goldenCollection, drop)); err == nil {
			t.Errorf("config.collections without %s accepted", drop)
		}
	}
	for _, drop := range []string{"min", "max", "shard", "lastmod"} {
		if _, err := ParseChunk(coll, without(goldenChunk, drop)); err == nil {
			t.Errorf("config.chunks without %s accepted", drop)
		}
	}
}

func TestShardIdentityRoundTrip(t *testing.T) {
	id := ShardIdentity{ShardName: "sh0", ClusterID: mustOID("60f989a2430bfdd95d8cfa21"), ConfigsvrConnectionString: "cfg/a:1,b:2"}
	want := bson.D{{Key: "_id", Value: "shardIdentity"}, {Key: "shardName", Value: "sh0"},
		{Key: "clusterId", Value: id.ClusterID}, {Key: "configsvrConnectionString", Value: "cfg/a:1,b:2"}}
	if !sameBSON(id.Doc(), want) {
		t.Fatalf("doc %v", id.Doc())
	}
	back, err := ParseShardIdentity(want)
	if err != nil || back != id {
		t.Fatalf("round trip %+v %v", back, err)
	}
	if _, err := ParseShardIdentity(without(want, "configsvrConnectionString")); err == nil {
		t.Fatal("identity without config servers accepted")
	}
	mem := newRoutingMem()
	if err := InsertShardIdentity(context.Background(), mem, id); err != nil {
		t.Fatal(err)
	}
	got := mem.cmds[0]
	want = bson.D{{Key: "update", Value: "system.version"}, {Key: "updates", Value: bson.A{bson.D{
		{Key: "q", Value: bson.D{{Key: "_id", Value: "shardIdentity"}}},
		{Key: "u", Value: want[1:]}, {Key: "upsert", Value: true}}}},
		{Key: "writeConcern", Value: bson.D{{Key: "w", Value: "majority"}, {Key: "wtimeout", Value: int64(15000)}}}}
	if got.db != "admin" || !sameBSON(got.cmd, want) {
		t.Fatalf("sent %s %v", got.db, got.cmd)
	}
}

func TestCreateAndReadRoutingTable(t *testing.T) {
	ctx := context.Background()
	mem := newRoutingMem()
	c := NewCatalog(mem)
	coll := NewCollection("db.c", key.MustParse(bson.D{{Key: "x", Value: "hashed"}}), false, time.Unix(1700000000, 0))
	chunks, err := routing.InitialChunks(coll, routing.InitialSplit{Primary: "sh0", Shards: []string{"sh0", "sh1"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, found, err := c.RoutingTable(ctx, "db.c"); found || err != nil {
		t.Fatalf("unsharded: found %v err %v", found, err)
	}
	if err := c.CreateShardedCollection(ctx, coll, chunks); err != nil {
		t.Fatal(err)
	}
	m, found, err := c.RoutingTable(ctx, "db.c")
	if err != nil || !found {
		t.Fatalf("found %v err %v", found, err)
	}
	if !reflect.DeepEqual(m.Collection(), coll) || len(m.Chunks()) != 4 ||
		m.PlacementVersion("sh1").String() != chunks[3].Lastmod.String() {
		t.Fatalf("read back %+v, %d chunks", m.Collection(), len(m.Chunks()))
	}
	// A second shardCollection loses: AlreadyInitialized, its chunks removed.
	again := NewCollection("db.c", coll.Key, false, time.Unix(1700000001, 0))
	ch2, _ := routing.InitialChunks(again, routing.InitialSplit{Primary: "sh1"})
	if err := c.CreateShardedCollection(ctx, again, ch2); !mongoerr.Is(err, mongoerr.AlreadyInitialized) {
		t.Fatalf("second shardCollection: %v", err)
	}
	if n := len(mem.colls[ChunksColl]); n != 4 {
		t.Fatalf("%d chunks left, want the first attempt's 4", n)
	}
	for _, cc := range mem.cmds {
		if !strings.Contains(fmt.Sprint(cc.cmd), "majority") {
			t.Fatalf("metadata command without majority: %v", cc.cmd)
		}
	}
}

// routingMem is an in-memory config server for the routing metadata:
// find by one top-level field's equality (one batch), insert of many,
// delete by one field, and the shardIdentity upsert.
type routingMem struct {
	colls map[string][]bson.D
	cmds  []sent
}

type sent struct {
	db  string
	cmd bson.D
}

func newRoutingMem() *routingMem { return &routingMem{colls: map[string][]bson.D{}} }

func (m *routingMem) Run(_ context.Context, db string, cmd bson.D) (bson.D, error) {
	m.cmds = append(m.cmds, sent{db, cmd})
	coll, _ := cmd[0].Value.(string)
	switch cmd[0].Key {
	case "find":
		f, _ := bsonx.Get(cmd, "filter")
		var out []bson.D
		for _, d := range m.colls[coll] {
			if matches(d, f.(bson.D)) {
				out = append(out, d)
			}
		}
		return cursorReply("firstBatch", out, false), nil
	case "insert":
		docs, _ := bsonx.Get(cmd, "documents")
		for _, v := range docs.(bson.A) {
			d := v.(bson.D)
			for _, old := range m.colls[coll] {
				if sameBSON(old[:1], d[:1]) {
					return bson.D{{Key: "writeErrors", Value: bson.A{bson.D{{Key: "index", Value: int32(0)}, {Key: "code", Value: int32(11000)}, {Key: "errmsg", Value: "E11000"}}}}, {Key: "ok", Value: 1.0}}, nil
				}
			}
			m.colls[coll] = append(m.colls[coll], d)
		}
		return bson.D{{Key: "ok", Value: 1.0}}, nil
	case "delete":
		dels, _ := bsonx.Get(cmd, "deletes")
		q, _ := bsonx.Get(dels.(bson.A)[0].(bson.D), "q")
		var keep []bson.D
		for _, d := range m.colls[coll] {
			if !matches(d, q.(bson.D)) {
				keep = append(keep, d)
			}
		}
		m.colls[coll] = keep
		return bson.D{{Key: "ok", Value: 1.0}}, nil
	case "update":
		return bson.D{{Key: "n", Value: int32(1)}, {Key: "ok", Value: 1.0}}, nil
	}
	return nil, fmt.Errorf("unexpected %v", cmd)
}

func matches(d, filter bson.D) bool {
	for _, f := range filter {
		v, _ := bsonx.Get(d, f.Key)
		if !sameBSON(bson.D{{Key: "v", Value: v}}, bson.D{{Key: "v", Value: f.Value}}) {
			return false
		}
	}
	return true
}

func sameBSON(a, b bson.D) bool {
	x, err1 := bson.Marshal(a)
	y, err2 := bson.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}

func without(d bson.D, name string) bson.D {
	var out bson.D
	for _, e := range d {
		if e.Key != name {
			out = append(out, e)
		}
	}
	return out
}
