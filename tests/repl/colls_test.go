package repl

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/relaydb/relaydb/internal/cluster"
)

// collInfos returns listCollections' name, type and options of db, by name.
func collInfos(ctx context.Context, cl *mongo.Client, db string) (map[string]string, error) {
	specs, err := cl.Database(db).ListCollectionSpecifications(ctx, bson.D{})
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, s := range specs {
		out[s.Name] = s.Type + " " + s.Options.String()
	}
	return out, nil
}

// cappedIDs lists the _ids of db.capped in natural order.
func cappedIDs(ctx context.Context, cl *mongo.Client) ([]int32, error) {
	cur, err := cl.Database("rules").Collection("capped").Find(ctx, bson.D{})
	if err != nil {
		return nil, err
	}
	var out []int32
	for cur.Next(ctx) {
		out = append(out, cur.Current.Lookup("_id").Int32())
	}
	return out, cur.Err()
}

// TestCollectionRulesReplicate: validators (and collMod), views, capped
// collections (their evictions) and time-series collections reach a
// secondary as the primary has them;
// the secondary applies a document the validator refuses (written with
// bypassDocumentValidation); an initial sync clones the view, and a later
// drop of the view on the primary reaches the synced member.
func TestCollectionRulesReplicate(t *testing.T) {
	c := upSet(t, cluster.Spec{Data: 2})
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	prim := primary(t, c, 30*time.Second)
	pc := direct(t, c, prim)
	db := pc.Database("rules", options.Database().SetWriteConcern(writeconcern.Majority()))
	validator := bson.D{{Key: "a", Value: bson.D{{Key: "$type", Value: "int"}}}}
	steps := []error{
		db.CreateCollection(ctx, "val", options.CreateCollection().SetValidator(validator)),
		db.RunCommand(ctx, bson.D{{Key: "collMod", Value: "val"}, {Key: "validationLevel", Value: "moderate"}, {Key: "writeConcern", Value: bson.D{{Key: "w", Value: "majority"}}}}).Err(),
		db.CreateView(ctx, "vw", "val", mongo.Pipeline{{{Key: "$match", Value: bson.D{{Key: "a", Value: 1}}}}}),
		db.CreateCollection(ctx, "capped", options.CreateCollection().SetCapped(true).SetSizeInBytes(4096).SetMaxDocuments(2)),
		db.CreateCollection(ctx, "ts", options.CreateCollection().SetExpireAfterSeconds(86400).
			SetTimeSeriesOptions(options.TimeSeries().SetTimeField("t"))),
	}
	for i, err := range steps {
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	if _, err := db.Collection("val").InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: "text"}},
		options.InsertOne().SetBypassDocumentValidation(true)); err != nil {
		t.Fatal(err)
	}
	for i := int32(1); i <= 4; i++ {
		if _, err := db.Collection("capped").InsertOne(ctx, bson.D{{Key: "_id", Value: i}}); err != nil {
			t.Fatal(err)
		}
	}
	now := bson.NewDateTimeFromTime(time.Now())
	if _, err := db.Collection("ts").InsertMany(ctx, []any{bson.D{{Key: "_id", Value: 1}, {Key: "t", Value: now}},
		bson.D{{Key: "_id", Value: 1}, {Key: "t", Value: now}}}); err != nil {
		t.Fatal(err)
	}
	want, err := collInfos(ctx, pc, "rules")
	if err != nil || len(want) != 5 {
		t.Fatalf("primary listCollections: %v %v", want, err)
	}
	same := func(m *cluster.Member) func() error {
		return func() error {
			cl := direct(t, c, m)
			got, err := collInfos(ctx, cl, "rules")
			if err != nil {
				return err
			}
			if !reflect.DeepEqual(got, want) {
				return fmt.Errorf("collections %v, want %v", got, want)
			}
			ids, err := cappedIDs(ctx, cl)
			if err != nil || !reflect.DeepEqual(ids, []int32{3, 4}) {
				return fmt.Errorf("capped ids %v (%v), want [3 4]", ids, err)
			}
			if n, err := cl.Database("rules").Collection("val").CountDocuments(ctx, bson.D{}); err != nil || n != 1 {
				return fmt.Errorf("val count %d (%v)", n, err)
			}
			if n, err := cl.Database("rules").Collection("ts").CountDocuments(ctx, bson.D{}); err != nil || n != 2 {
				return fmt.Errorf("time-series count %d (%v)", n, err)
			}
			return nil
		}
	}
	sec := secondaries(c, prim)[0]
	eventually(t, 20*time.Second, "secondary has the rules", same(sec))

	// Initial sync of a wiped secondary clones the view with its UUID.
	wipeAndRestart(ctx, t, c, sec)
	waitSecondary(ctx, t, c, sec)
	eventually(t, 30*time.Second, "synced member has the rules", same(sec))
	if err := db.Collection("vw").Drop(ctx); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "view drop reaches the synced member", func() error {
		got, err := collInfos(ctx, direct(t, c, sec), "rules")
		if err != nil {
			return err
		}
		if _, ok := got["vw"]; ok {
			return fmt.Errorf("view still listed: %v", got)
		}
		return nil
	})
}
