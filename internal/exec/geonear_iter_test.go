package exec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/geo"
	"github.com/relaydb/relaydb/internal/query"
)

// The rounds of nearIter give exactly the documents and order that
// sorting every document by distance gives, for random points and small
// polygons, origins and bounds, on a 2dsphere and a 2d index.
func TestNearRoundsMatchSortedScan(t *testing.T) {
	seed := uint64(7)
	r := rand.New(rand.NewPCG(seed, seed))
	e := emptyEngine(t)
	col, err := e.CollectionForWrite("t", "c")
	if err != nil {
		t.Fatal(err)
	}
	specs := ddDocs(t, `{"key": {"loc": "2dsphere"}, "name": "s"}
{"key": {"p": "2d"}, "name": "f"}`)
	if _, _, err := e.Catalog().CreateIndexes(col, specs); err != nil {
		t.Fatal(err)
	}
	var docs []bson.D
	for i := range 300 {
		x, y := r.Float64()*120-60, r.Float64()*120-60
		loc := bson.D{{Key: "type", Value: "Point"}, {Key: "coordinates", Value: bson.A{x, y}}}
		if i%10 == 0 {
			loc = bson.D{{Key: "type", Value: "Polygon"}, {Key: "coordinates", Value: bson.A{bson.A{
				bson.A{x, y}, bson.A{x + 0.5, y}, bson.A{x + 0.5, y + 0.5}, bson.A{x, y + 0.5}, bson.A{x, y}}}}}
		}
		docs = append(docs, bson.D{{Key: "_id", Value: int32(i)}, {Key: "loc", Value: loc}, {Key: "p", Value: bson.A{x, y}}})
	}
	if res := e.Insert("t", "c", docs, true, nil); len(res.Errors) > 0 {
		t.Fatal(res.Errors[0].Err)
	}
	for trial := range 15 {
		x, y := r.Float64()*100-50, r.Float64()*100-50
		filters := []string{
			fmt.Sprintf(`{"loc": {"$near": {"$geometry": {"type": "Point", "coordinates": [%f, %f]}}}}`, x, y),
			fmt.Sprintf(`{"loc": {"$near": {"$geometry": {"type": "Point", "coordinates": [%f, %f]}, "$minDistance": 100000, "$maxDistance": %f}}}`, x, y, 200000+r.Float64()*3e6),
			fmt.Sprintf(`{"loc": {"$nearSphere": [%f, %f], "$maxDistance": 0.3}}`, x, y),
			fmt.Sprintf(`{"p": {"$near": [%f, %f]}}`, x, y),
			fmt.Sprintf(`{"p": {"$near": [%f, %f], "$maxDistance": %f}}`, x, y, r.Float64()*40),
		}
		for _, f := range filters {
			filter := ddDoc(t, f)
			got := findIDs(t, e, FindParams{Filter: filter})
			want := sortedByDistance(t, docs, filter)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("trial %d %s:\n got %v\nwant %v", trial, f, got, want)
			}
		}
	}
}

// sortedByDistance is the _ids of docs within the filter's bounds, by
// distance (random coordinates make ties unlikely).
func sortedByDistance(t *testing.T, docs []bson.D, filter bson.D) []string {
	t.Helper()
	path, dist, ok := query.NearOrder(filter)
	if !ok {
		t.Fatal("no $near")
	}
	n, err := query.ParseNear(filter[0].Value.(bson.D))
	if err != nil {
		t.Fatal(err)
	}
	if path == "loc" {
		n.Sphere = true // a 2dsphere index measures legacy $near on the sphere
	}
	type hit struct {
		id int32
		d  float64
	}
	var hits []hit
	for _, d := range docs {
		v := dist(d)
		if path == "loc" && !n.GeoJSON {
			v = math.Inf(1)
			query.EachLocation(d[1].Value, func(g *geo.Geometry) bool { v = math.Min(v, n.Distance(g)); return false })
		}
		if !math.IsInf(v, 1) && n.InRange(v) {
			hits = append(hits, hit{d[0].Value.(int32), v})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].d < hits[j].d })
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = fmt.Sprint(h.id)
	}
	return out
}
