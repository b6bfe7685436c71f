package catalog

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

func TestCollModIndexTable(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "db", "c")
	specs := []bson.D{spec("a_1", d("a", 1)), spec("t_1", d("t", 1), "expireAfterSeconds", int32(60))}
	if _, _, err := c.CreateIndexes(coll, specs); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		index bson.D
		code  mongoerr.Code
		reply bson.D
	}{
		{"hide by name", d("name", "a_1", "hidden", true), 0, d("hidden_old", false, "hidden_new", true)},
		{"hide again is silent", d("name", "a_1", "hidden", true), 0, nil},
		{"unhide by key", d("keyPattern", d("a", int32(1)), "hidden", false), 0, d("hidden_old", true, "hidden_new", false)},
		{"ttl", d("name", "t_1", "expireAfterSeconds", int32(5)), 0, d("expireAfterSeconds_old", int64(60), "expireAfterSeconds_new", int64(5))},
		{"ttl on non-ttl", d("name", "a_1", "expireAfterSeconds", 5), mongoerr.InvalidOptions, nil},
		{"negative ttl", d("name", "t_1", "expireAfterSeconds", -1), mongoerr.InvalidOptions, nil},
		{"hide _id", d("name", "_id_", "hidden", true), mongoerr.BadValue, nil},
		{"missing index", d("name", "zz", "hidden", true), mongoerr.IndexNotFound, nil},
		{"both name and key", d("name", "a_1", "keyPattern", d("a", 1), "hidden", true), mongoerr.InvalidOptions, nil},
		{"neither", d("hidden", true), mongoerr.InvalidOptions, nil},
		{"nothing to change", d("name", "a_1"), mongoerr.InvalidOptions, nil},
		{"hidden not bool", d("name", "a_1", "hidden", 1), mongoerr.TypeMismatch, nil},
		{"unknown field", d("name", "a_1", "bogus", 1), mongoerr.IDLUnknownField, nil},
		{"unique before prepareUnique", d("name", "a_1", "unique", true), mongoerr.InvalidOptions, nil},
		{"unique false", d("name", "a_1", "unique", false), mongoerr.BadValue, nil},
	}
	for _, tc := range tests {
		_, mod, err := c.CollModIndex("db", "c", bson.D{{Key: "index", Value: tc.index}})
		if tc.code != 0 {
			if !mongoerr.Is(err, tc.code) {
				t.Errorf("%s: want %d got %v", tc.name, tc.code, err)
			}
			continue
		}
		if err != nil || bsonx.Compare(mod.Reply, tc.reply) != 0 {
			t.Errorf("%s: reply %v err %v, want %v", tc.name, mod, err, tc.reply)
		}
	}
	col := c.Collection("db", "c")
	if ttl := col.Index("t_1").ExpireAfterSeconds; ttl == nil || *ttl != 5 {
		t.Fatalf("ttl not changed: %v", ttl)
	}
	if _, _, err := c.CollModIndex("db", "c", bson.D{{Key: "index", Value: d("name", "a_1", "hidden", true)}}); err != nil {
		t.Fatal(err)
	}
	col = c.Collection("db", "c")
	if !col.Index("a_1").Hidden || len(col.VisibleIndexes()) != 2 || len(col.Indexes()) != 3 {
		t.Fatalf("hidden: %v visible %d", col.Index("a_1").Spec, len(col.VisibleIndexes()))
	}
	if h, _ := bsonx.Get(col.Index("a_1").Spec, "hidden"); h != true {
		t.Fatalf("spec %v", col.Index("a_1").Spec)
	}
}

func TestCreateHiddenIndex(t *testing.T) {
	if _, err := parseSpec(spec("_id_", d("_id", 1), "hidden", true)); !mongoerr.Is(err, mongoerr.BadValue) {
		t.Fatalf("hidden _id: %v", err)
	}
	if _, err := parseSpec(spec("a_1", d("a", 1), "hidden", "yes")); !mongoerr.Is(err, mongoerr.TypeMismatch) {
		t.Fatalf("hidden string: %v", err)
	}
	idx, err := parseSpec(spec("a_1", d("a", 1), "hidden", true))
	if err != nil || !idx.Hidden {
		t.Fatalf("hidden: %v %v", idx, err)
	}
}
