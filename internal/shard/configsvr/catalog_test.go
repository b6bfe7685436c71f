package configsvr

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// memConfig is an in-memory config server: find (one batch of two, then
// getMore), insert (duplicate _id is a write error) and delete by _id on
// config.*; it records the read and write concerns it was sent.
type memConfig struct {
	colls    map[string][]bson.D
	concerns []string
	cursor   []bson.D // the rest of the open cursor
	// beforeInsert, when set, runs before an insert (to simulate a racing
	// router).
	beforeInsert func()
}

func (m *memConfig) Run(_ context.Context, db string, cmd bson.D) (bson.D, error) {
	if db != DB {
		return nil, fmt.Errorf("db %s", db)
	}
	coll, _ := cmd[0].Value.(string)
	switch cmd[0].Key {
	case "find":
		rc, _ := bsonx.Get(cmd, "readConcern")
		m.concerns = append(m.concerns, fmt.Sprint("find ", rc))
		filter, _ := bsonx.Get(cmd, "filter")
		var out []bson.D
		for _, d := range m.colls[coll] {
			if f, _ := filter.(bson.D); len(f) == 0 || mustID(d) == f[0].Value {
				out = append(out, d)
			}
		}
		slices.SortFunc(out, func(a, b bson.D) int { return strings.Compare(mustID(a), mustID(b)) })
		first, rest := out, []bson.D(nil)
		if len(out) > 2 {
			first, rest = out[:2], out[2:]
		}
		m.cursor = rest
		return cursorReply("firstBatch", first, len(rest) > 0), nil
	case "getMore":
		rest := m.cursor
		m.cursor = nil
		return cursorReply("nextBatch", rest, false), nil
	case "insert":
		if m.beforeInsert != nil {
			m.beforeInsert()
			m.beforeInsert = nil
		}
		wc, _ := bsonx.Get(cmd, "writeConcern")
		m.concerns = append(m.concerns, fmt.Sprint("insert ", wc))
		docs, _ := bsonx.Get(cmd, "documents")
		d := docs.(bson.A)[0].(bson.D)
		for _, old := range m.colls[coll] {
			if mustID(old) == mustID(d) {
				return bson.D{{Key: "n", Value: int32(0)}, {Key: "writeErrors", Value: bson.A{bson.D{
					{Key: "index", Value: int32(0)}, {Key: "code", Value: int32(11000)}, {Key: "errmsg", Value: "E11000 duplicate key"}}}}, {Key: "ok", Value: 1.0}}, nil
			}
		}
		m.colls[coll] = append(m.colls[coll], d)
		return bson.D{{Key: "n", Value: int32(1)}, {Key: "ok", Value: 1.0}}, nil
	case "delete":
		dels, _ := bsonx.Get(cmd, "deletes")
		q, _ := bsonx.Get(dels.(bson.A)[0].(bson.D), "q")
		id := q.(bson.D)[0].Value
		m.colls[coll] = slices.DeleteFunc(m.colls[coll], func(d bson.D) bool { return mustID(d) == id })
		return bson.D{{Key: "ok", Value: 1.0}}, nil
	}
	return nil, fmt.Errorf("unexpected %v", cmd)
}

func mustID(d bson.D) string {
	v, _ := bsonx.Get(d, "_id")
	s, _ := v.(string)
	return s
}

func cursorReply(key string, docs []bson.D, more bool) bson.D {
	arr := bson.A{}
	for _, d := range docs {
		arr = append(arr, d)
	}
	id := int64(0)
	if more {
		id = 7
	}
	return bson.D{{Key: "cursor", Value: bson.D{{Key: "id", Value: id}, {Key: key, Value: arr}}}, {Key: "ok", Value: 1.0}}
}

func newMem() *memConfig { return &memConfig{colls: map[string][]bson.D{}} }

func TestPickPrimary(t *testing.T) {
	shards := []Shard{{ID: "sh1", State: 1}, {ID: "sh0", State: 1}, {ID: "sh2", State: 1}}
	tests := []struct {
		dbs  map[string]string
		want string
	}{
		{nil, "sh0"}, // ties go by _id
		{map[string]string{"a": "sh0"}, "sh1"},
		{map[string]string{"a": "sh0", "b": "sh1"}, "sh2"},
		{map[string]string{"a": "sh0", "b": "sh1", "c": "sh2", "d": "sh2", "e": "sh0"}, "sh1"},
	}
	for _, tt := range tests {
		var dbs []Database
		for n, p := range tt.dbs {
			dbs = append(dbs, Database{Name: n, Primary: p})
		}
		if got := PickPrimary(shards, dbs); got != tt.want {
			t.Errorf("PickPrimary(%v) = %s, want %s", tt.dbs, got, tt.want)
		}
	}
	if got := PickPrimary(nil, nil); got != "" {
		t.Errorf("no shards: %q", got)
	}
}

func TestDocsRoundTrip(t *testing.T) {
	s := Shard{ID: "sh0", Host: "sh0/a:1,b:2", State: 1}
	got, err := ParseShard(s.Doc())
	if err != nil || got != s || got.SetName() != "sh0" || strings.Join(got.Seeds(), ",") != "a:1,b:2" {
		t.Fatalf("shard round trip: %+v %v", got, err)
	}
	d := NewDatabase("db", "sh1", time.Unix(1700000000, 0))
	back, err := ParseDatabase(d.Doc())
	if err != nil || back.Name != "db" || back.Primary != "sh1" || back.Version.LastMod != 1 ||
		back.Version.Timestamp.T != 1700000000 || len(back.Version.UUID.Data) != 16 || back.Version.UUID.Subtype != 4 {
		t.Fatalf("database round trip: %+v %v", back, err)
	}
	if _, err := ParseShard(bson.D{{Key: "_id", Value: "x"}}); err == nil {
		t.Fatal("shard without host accepted")
	}
}

func TestCatalog(t *testing.T) {
	ctx := context.Background()
	mem := newMem()
	c := NewCatalog(mem)
	if _, err := c.CreateDatabase(ctx, "a", ""); !mongoerr.Is(err, ShardNotFound) {
		t.Fatalf("create without shards: %v", err)
	}
	for _, id := range []string{"sh1", "sh0", "sh2"} {
		if err := c.InsertShard(ctx, Shard{ID: id, Host: id + "/h:1", State: 1}); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.InsertShard(ctx, Shard{ID: "sh0", Host: "x/h:2"}); !mongoerr.Is(err, mongoerr.DuplicateKey) {
		t.Fatalf("duplicate shard: %v", err)
	}
	shards, err := c.Shards(ctx) // three documents: a firstBatch of two and a getMore
	if err != nil || len(shards) != 3 || shards[0].ID != "sh0" || shards[2].ID != "sh2" {
		t.Fatalf("shards = %+v, %v", shards, err)
	}
	for i, want := range []string{"sh0", "sh1", "sh2", "sh0"} {
		d, err := c.CreateDatabase(ctx, fmt.Sprintf("db%d", i), "")
		if err != nil || d.Primary != want {
			t.Fatalf("db%d: primary %s, err %v; want %s", i, d.Primary, err, want)
		}
	}
	if d, _ := c.CreateDatabase(ctx, "db1", ""); d.Primary != "sh1" {
		t.Fatalf("existing database moved to %s", d.Primary)
	}
	if _, err := c.CreateDatabase(ctx, "DB1", ""); !mongoerr.Is(err, DatabaseDifferCase) {
		t.Fatalf("case-differing name: %v", err)
	}
	// A racing router inserts "race" first: its choice wins.
	mem.beforeInsert = func() {
		mem.colls[DBsColl] = append(mem.colls[DBsColl], NewDatabase("race", "sh2", time.Now()).Doc())
	}
	if d, err := c.CreateDatabase(ctx, "race", ""); err != nil || d.Primary != "sh2" {
		t.Fatalf("lost race: %+v %v, want the winner's sh2", d, err)
	}
	if err := c.DropDatabase(ctx, "db0"); err != nil {
		t.Fatal(err)
	}
	if _, found, _ := c.Database(ctx, "db0"); found {
		t.Fatal("db0 still listed after DropDatabase")
	}
	for _, cc := range mem.concerns {
		if !strings.Contains(cc, "majority") {
			t.Fatalf("a metadata command without majority concern: %s", cc)
		}
	}
}
