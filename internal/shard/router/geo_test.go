package router

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// A leading $geoNear runs on every shard and is merged by its distance.
func TestSplitGeoNear(t *testing.T) {
	p := splitPipeline(pipe(t, `[{"$geoNear":{"near":[0,0],"distanceField":"d.m"}},{"$limit":3}]`))
	if js(p.shards) != `[{"$geoNear":{"near":[0,0],"distanceField":"d.m"}}]` || js(p.merge) != `[{"$limit":3}]` || js(p.sortSpec) != `{"d.m":1}` {
		t.Errorf("split %s | %s | %s", js(p.shards), js(p.merge), js(p.sortSpec))
	}
}

// A $near find over several shards merges by distance from the documents'
// locations, keeping the location path in the shards' projection.
func TestNearMerge(t *testing.T) {
	var filter bson.D
	if err := bson.UnmarshalExtJSON([]byte(`{"loc":{"$near":[0,0]}}`), false, &filter); err != nil {
		t.Fatal(err)
	}
	near, keys := nearMerge(filter, nil)
	if near == nil || js(keys) != `{"loc":1}` {
		t.Fatalf("nearMerge: %v %s", near != nil, js(keys))
	}
	mc := &mergedCursor{sort: keys, near: near}
	a := bson.D{{Key: "loc", Value: bson.A{3, 4}}}
	b := bson.D{{Key: "loc", Value: bson.A{1, 1}}}
	if mc.less(a, b) || !mc.less(b, a) {
		t.Error("distance order")
	}
	if n, _ := nearMerge(filter, bson.D{{Key: "x", Value: 1}}); n != nil {
		t.Error("an explicit sort decides the order")
	}
}
