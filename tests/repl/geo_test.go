package repl

import (
	"fmt"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
)

// TestGeoIndexReplicates: a 2dsphere index and its documents, written
// with w:"majority" on the primary, answer $near (which needs the index)
// nearest first on every secondary.
func TestGeoIndexReplicates(t *testing.T) {
	c := sharedSet(t)
	cl := connectSet(t, c)
	coll := cl.Database("repl_geo").Collection("pts", options.Collection().SetWriteConcern(writeconcern.Majority()))
	ctx, cancel := ctxT(30 * time.Second)
	defer cancel()
	_ = coll.Drop(ctx)
	if _, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "loc", Value: "2dsphere"}}}); err != nil {
		t.Fatalf("createIndex: %v", err)
	}
	var docs []any
	for i := range 5 {
		docs = append(docs, bson.D{{Key: "_id", Value: int32(i)}, {Key: "loc", Value: bson.D{{Key: "type", Value: "Point"}, {Key: "coordinates", Value: bson.A{float64(i), 0.0}}}}})
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatalf("insertMany: %v", err)
	}
	near := bson.D{{Key: "loc", Value: bson.D{{Key: "$near", Value: bson.D{
		{Key: "$geometry", Value: bson.D{{Key: "type", Value: "Point"}, {Key: "coordinates", Value: bson.A{2.9, 0.0}}}}}}}}}
	p := primary(t, c, 10*time.Second)
	for _, m := range secondaries(c, p) {
		sec := direct(t, c, m).Database("repl_geo").Collection("pts", options.Collection().SetReadPreference(readpref.SecondaryPreferred()))
		eventually(t, 10*time.Second, m.Name+" answers $near", func() error {
			ctx, cancel := ctxT(5 * time.Second)
			defer cancel()
			cur, err := sec.Find(ctx, near)
			if err != nil {
				return err
			}
			var got []bson.D
			if err := cur.All(ctx, &got); err != nil {
				return err
			}
			var ids []any
			for _, d := range got {
				ids = append(ids, d[0].Value)
			}
			if fmt.Sprint(ids) != "[3 2 4 1 0]" {
				return fmt.Errorf("$near on %s = %v", m.Name, ids)
			}
			return nil
		})
	}
}
