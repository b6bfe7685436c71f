package configsvr

import (
	"context"
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// TestMajorityWriteConcern: the client's write concern as mongos makes it
// for a metadata command (appendMajorityWriteConcern).
func TestMajorityWriteConcern(t *testing.T) {
	wc := func(fields ...bson.E) bson.D {
		return bson.D{{Key: "shardCollection", Value: "a.b"}, {Key: "writeConcern", Value: bson.D(fields)}}
	}
	for _, tc := range []struct {
		name string
		cmd  bson.D
		want bson.D
	}{
		{"none", bson.D{{Key: "split", Value: "a.b"}}, nil},
		{"majority as given", wc(bson.E{Key: "w", Value: "majority"}, bson.E{Key: "wtimeout", Value: int32(5)}, bson.E{Key: "j", Value: true}),
			bson.D{{Key: "w", Value: "majority"}, {Key: "wtimeout", Value: int32(5)}, {Key: "j", Value: true}}},
		{"w 1 made majority, wtimeout kept", wc(bson.E{Key: "w", Value: int32(1)}, bson.E{Key: "wtimeout", Value: int64(250)}),
			bson.D{{Key: "w", Value: "majority"}, {Key: "wtimeout", Value: int64(250)}}},
		{"w 1 without wtimeout: no limit", wc(bson.E{Key: "w", Value: int32(1)}), bson.D{{Key: "w", Value: "majority"}}},
		{"empty", wc(), bson.D{{Key: "w", Value: "majority"}}},
	} {
		got, err := MajorityWriteConcern(tc.cmd)
		if err != nil || bsonx.Compare(got, tc.want) != 0 || (got == nil) != (tc.want == nil) {
			t.Errorf("%s: %v %v, want %v", tc.name, got, err, tc.want)
		}
	}
	for _, bad := range []bson.D{
		{{Key: "split", Value: "a.b"}, {Key: "writeConcern", Value: "majority"}},
		wc(bson.E{Key: "w", Value: bson.D{}}),
		wc(bson.E{Key: "wtimeout", Value: "soon"}),
	} {
		if _, err := MajorityWriteConcern(bad); !mongoerr.Is(err, mongoerr.FailedToParse) {
			t.Errorf("%v: %v, want FailedToParse", bad, err)
		}
	}
}

// TestMetadataWritesUseContextWriteConcern: a write under WithWriteConcern
// sends that write concern; otherwise the default majority one.
func TestMetadataWritesUseContextWriteConcern(t *testing.T) {
	mem := newMem()
	c := NewCatalog(mem)
	ctx := context.Background()
	if err := c.InsertShard(ctx, Shard{ID: "sh0", Host: "sh0/h:1", State: 1}); err != nil {
		t.Fatal(err)
	}
	client := bson.D{{Key: "w", Value: "majority"}, {Key: "wtimeout", Value: int64(1234)}}
	if err := c.InsertShard(WithWriteConcern(ctx, client), Shard{ID: "sh1", Host: "sh1/h:1", State: 1}); err != nil {
		t.Fatal(err)
	}
	want := []string{fmt.Sprint("insert ", majority(ctx)), fmt.Sprint("insert ", client)}
	if len(mem.concerns) != 2 || mem.concerns[0] != want[0] || mem.concerns[1] != want[1] {
		t.Fatalf("write concerns sent: %v, want %v", mem.concerns, want)
	}
}
