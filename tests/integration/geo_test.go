package integration

import (
	"fmt"
	"math"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// TestGeo: 2dsphere and 2d indexes and the geo operators through the
// driver on one node: $near/$nearSphere nearest first with distance
// bounds (error 2 without a geo index), $geoWithin/$geoIntersects exact
// with and without an index, GEO_NEAR_2DSPHERE/IXSCAN in explain,
// $geoNear, invalid geometry refused (16755), and the index kept across
// a restart.
func TestGeo(t *testing.T) {
	s, c := startServer(t)
	coll := freshColl(t, c, "geo")
	insertDocs(t, coll, geoCityDocs()...)
	t.Run("NeedsIndex", func(t *testing.T) {
		_, err := coll.Find(tctx(t, opTimeout), nearFilter(0, 0, 0))
		wantCode(t, err, 2, "$near without a geo index")
	})
	if name := createIndex(t, coll, bson.D{{Key: "loc", Value: "2dsphere"}}, nil); name != "loc_2dsphere" {
		t.Fatalf("index name %q", name)
	}
	spec := listIndexes(t, coll)["loc_2dsphere"]
	if v, _ := field(spec, "2dsphereIndexVersion").(int32); v != 3 {
		t.Errorf("listIndexes loc_2dsphere = %s, want 2dsphereIndexVersion 3", asJSON(spec))
	}
	t.Run("Near", func(t *testing.T) { testGeoNear(t, coll) })
	t.Run("Within", func(t *testing.T) { testGeoWithin(t, coll) })
	t.Run("Refused", func(t *testing.T) { testGeoRefused(t, coll) })
	t.Run("GeoNearStage", func(t *testing.T) { testGeoNearStage(t, coll) })
	t.Run("2d", func(t *testing.T) { testGeo2d(t, freshColl(t, c, "geo")) })
	t.Run("Restart", func(t *testing.T) {
		s.Restart(t)
		coll := s.Client(t).Database("geo").Collection(coll.Name())
		if got := orderedIDs(t, coll, nearFilter(0, 0, 250000)); fmt.Sprint(got) != "[0 1 2]" {
			t.Errorf("after restart $near = %v, want [0 1 2]", got)
		}
		wantStage(t, coll, nearFilter(0, 0, 1000), nil, "GEO_NEAR_2DSPHERE")
	})
}

// geoCityDocs: points on the equator at longitude 0..9 (_id = longitude)
// and a one-degree square polygon at (20, 20).
func geoCityDocs() []bson.D {
	var docs []bson.D
	for i := range 10 {
		docs = append(docs, bson.D{{Key: "_id", Value: int32(i)}, {Key: "loc", Value: geoPoint(float64(i), 0)}, {Key: "n", Value: int32(i % 2)}})
	}
	return append(docs, bson.D{{Key: "_id", Value: int32(100)}, {Key: "loc", Value: geoSquare(20, 20, 1)}})
}

func geoPoint(x, y float64) bson.D {
	return bson.D{{Key: "type", Value: "Point"}, {Key: "coordinates", Value: bson.A{x, y}}}
}

func geoSquare(x, y, side float64) bson.D {
	return bson.D{{Key: "type", Value: "Polygon"}, {Key: "coordinates", Value: bson.A{bson.A{
		bson.A{x, y}, bson.A{x + side, y}, bson.A{x + side, y + side}, bson.A{x, y + side}, bson.A{x, y}}}}}
}

// nearFilter is {loc: {$near: {$geometry: point, $maxDistance: m}}} (no bound when m is 0).
func nearFilter(x, y, maxMeters float64) bson.D {
	near := bson.D{{Key: "$geometry", Value: geoPoint(x, y)}}
	if maxMeters > 0 {
		near = append(near, bson.E{Key: "$maxDistance", Value: maxMeters})
	}
	return bson.D{{Key: "loc", Value: bson.D{{Key: "$near", Value: near}}}}
}

// orderedIDs runs find(filter) and returns the _ids in result order.
func orderedIDs(t *testing.T, coll *mongo.Collection, filter bson.D) []int32 {
	t.Helper()
	ctx := tctx(t, opTimeout)
	cur, err := coll.Find(ctx, filter)
	if err != nil {
		t.Fatalf("find %s: %v", asJSON(filter), err)
	}
	var out []int32
	for _, d := range decodeAll(t, ctx, cur) {
		id, _ := field(d, "_id").(int32)
		out = append(out, id)
	}
	return out
}

func testGeoNear(t *testing.T, coll *mongo.Collection) {
	if got := orderedIDs(t, coll, nearFilter(4.2, 0, 0)); fmt.Sprint(got) != "[4 5 3 6 2 7 1 8 0 9 100]" {
		t.Errorf("$near (4.2, 0) = %v, want nearest first", got)
	}
	if got := orderedIDs(t, coll, nearFilter(0, 0, 250000)); fmt.Sprint(got) != "[0 1 2]" {
		t.Errorf("$near $maxDistance 250 km = %v, want [0 1 2]", got)
	}
	sphere := bson.D{{Key: "loc", Value: bson.D{{Key: "$nearSphere", Value: bson.A{9, 0}}, {Key: "$minDistance", Value: 0.05}, {Key: "$maxDistance", Value: 0.09}}}}
	if got := orderedIDs(t, coll, sphere); fmt.Sprint(got) != "[6 5 4]" {
		t.Errorf("$nearSphere legacy radians = %v, want [6 5 4]", got)
	}
	and := bson.D{{Key: "n", Value: 1}, {Key: "loc", Value: nearFilter(0, 0, 0)[0].Value}}
	if got := orderedIDs(t, coll, and); fmt.Sprint(got) != "[1 3 5 7 9]" {
		t.Errorf("$near with {n: 1} = %v", got)
	}
	wantStage(t, coll, nearFilter(0, 0, 1000), nil, "GEO_NEAR_2DSPHERE")
	n, err := coll.CountDocuments(tctx(t, opTimeout), bson.D{{Key: "loc", Value: bson.D{{Key: "$geoWithin", Value: bson.D{{Key: "$centerSphere", Value: bson.A{bson.A{0, 0}, 0.03}}}}}}})
	if err != nil || n != 2 {
		t.Errorf("countDocuments $centerSphere = %d, %v; want 2", n, err)
	}
}

func testGeoWithin(t *testing.T, coll *mongo.Collection) {
	within := bson.D{{Key: "loc", Value: bson.D{{Key: "$geoWithin", Value: bson.D{{Key: "$geometry", Value: geoSquare(1.5, -1, 2)}}}}}}
	if got := idSet(t, coll, within, nil); fmt.Sprint(got) != "[2 3]" {
		t.Errorf("$geoWithin square = %v, want [2 3]", got)
	}
	wantStage(t, coll, within, nil, "IXSCAN")
	line := bson.D{{Key: "type", Value: "LineString"}, {Key: "coordinates", Value: bson.A{bson.A{20.5, 19}, bson.A{20.5, 22}}}}
	inter := bson.D{{Key: "loc", Value: bson.D{{Key: "$geoIntersects", Value: bson.D{{Key: "$geometry", Value: line}}}}}}
	if got := idSet(t, coll, inter, nil); fmt.Sprint(got) != "[100]" {
		t.Errorf("$geoIntersects line = %v, want [100]", got)
	}
	res, err := coll.DeleteMany(tctx(t, opTimeout), bson.D{{Key: "loc", Value: bson.D{{Key: "$geoWithin", Value: bson.D{{Key: "$box", Value: bson.A{bson.A{8.5, -1}, bson.A{9.5, 1}}}}}}}})
	if err != nil || res.DeletedCount != 1 {
		t.Fatalf("deleteMany $box = %v, %v", res, err)
	}
	insertDocs(t, coll, bson.D{{Key: "_id", Value: int32(9)}, {Key: "loc", Value: geoPoint(9, 0)}, {Key: "n", Value: int32(1)}})
}

func testGeoRefused(t *testing.T, coll *mongo.Collection) {
	for _, doc := range []bson.D{
		{{Key: "_id", Value: "bad1"}, {Key: "loc", Value: geoPoint(200, 0)}},
		{{Key: "_id", Value: "bad2"}, {Key: "loc", Value: bson.D{{Key: "type", Value: "Polygon"}, {Key: "coordinates", Value: bson.A{bson.A{bson.A{0, 0}, bson.A{1, 1}, bson.A{1, 0}, bson.A{0, 1}, bson.A{0, 0}}}}}}},
		{{Key: "_id", Value: "bad3"}, {Key: "loc", Value: "nowhere"}},
	} {
		_, err := coll.InsertOne(tctx(t, opTimeout), doc)
		wantCode(t, err, 16755, "insert "+asJSON(doc))
	}
	_, err := coll.UpdateOne(tctx(t, opTimeout), bson.D{{Key: "_id", Value: 0}}, bson.D{{Key: "$set", Value: bson.D{{Key: "loc", Value: bson.A{0, 95}}}}})
	wantCode(t, err, 16755, "update to latitude 95")
}

func testGeoNearStage(t *testing.T, coll *mongo.Collection) {
	pipe := mongo.Pipeline{
		{{Key: "$geoNear", Value: bson.D{{Key: "near", Value: geoPoint(0, 0)}, {Key: "distanceField", Value: "dist"},
			{Key: "maxDistance", Value: 250000}, {Key: "query", Value: bson.D{{Key: "n", Value: 0}}}, {Key: "includeLocs", Value: "where"}}}},
	}
	ctx := tctx(t, opTimeout)
	cur, err := coll.Aggregate(ctx, pipe)
	if err != nil {
		t.Fatal(err)
	}
	docs := decodeAll(t, ctx, cur)
	if len(docs) != 2 || field(docs[0], "_id") != int32(0) || field(docs[1], "_id") != int32(2) {
		t.Fatalf("$geoNear = %s, want _id 0 then 2", asJSON(docs))
	}
	if d, _ := field(docs[1], "dist").(float64); math.Abs(d-222639) > 50 || field(docs[1], "where") == nil {
		t.Errorf("$geoNear second document %s: dist about 222639 m and where set", asJSON(docs[1]))
	}
	_, err = coll.Aggregate(ctx, mongo.Pipeline{{{Key: "$match", Value: bson.D{}}}, pipe[0]})
	wantCode(t, err, 40603, "$geoNear not first")
}

func testGeo2d(t *testing.T, coll *mongo.Collection) {
	for i := range 5 {
		insertDocs(t, coll, bson.D{{Key: "_id", Value: int32(i)}, {Key: "p", Value: bson.A{float64(i), float64(i)}}})
	}
	createIndex(t, coll, bson.D{{Key: "p", Value: "2d"}}, nil)
	near := bson.D{{Key: "p", Value: bson.D{{Key: "$near", Value: bson.A{2.9, 3}}, {Key: "$maxDistance", Value: 1.4}}}}
	if got := orderedIDs(t, coll, near); fmt.Sprint(got) != "[3 2]" {
		t.Errorf("2d $near = %v, want [3 2]", got)
	}
	wantStage(t, coll, near, nil, "GEO_NEAR_2D")
	poly := bson.D{{Key: "p", Value: bson.D{{Key: "$geoWithin", Value: bson.D{{Key: "$polygon", Value: bson.A{bson.A{0, 0}, bson.A{3, 0}, bson.A{0, 3}}}}}}}}
	if got := idSet(t, coll, poly, nil); fmt.Sprint(got) != "[0 1]" {
		t.Errorf("$polygon = %v, want [0 1]", got)
	}
	_, err := coll.InsertOne(tctx(t, opTimeout), bson.D{{Key: "p", Value: bson.A{181, 0}}})
	wantCode(t, err, 13027, "2d point outside [-180, 180)")
}
