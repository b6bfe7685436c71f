package exec

import (
	"math/rand/v2"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/storage"
)

// benchGeoEngine holds n random points in [-10, 10]^2 (degrees) under a
// 2dsphere index (or none).
func benchGeoEngine(b *testing.B, n int, indexed bool) *Engine {
	b.Helper()
	cat, err := catalog.Open(catalog.Options{Storage: storage.Options{InMemory: true}, TTLInterval: -1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cat.Close() })
	e := New(cat, nil)
	col, err := e.CollectionForWrite("t", "c")
	if err != nil {
		b.Fatal(err)
	}
	if indexed {
		if _, _, err := e.Catalog().CreateIndexes(col, []bson.D{{{Key: "key", Value: bson.D{{Key: "loc", Value: "2dsphere"}}}, {Key: "name", Value: "loc_2dsphere"}}}); err != nil {
			b.Fatal(err)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	var docs []bson.D
	for i := range n {
		pt := bson.D{{Key: "type", Value: "Point"}, {Key: "coordinates", Value: bson.A{r.Float64()*20 - 10, r.Float64()*20 - 10}}}
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "loc", Value: pt}})
		if len(docs) == 1000 || i == n-1 {
			if res := e.Insert("t", "c", docs, true, nil); len(res.Errors) > 0 {
				b.Fatal(res.Errors[0].Err)
			}
			docs = nil
		}
	}
	return e
}

// go test ./internal/exec -run XXX -bench Geo -benchtime 200x
func BenchmarkGeo(b *testing.B) {
	const n = 20000
	near := `{"loc": {"$near": {"$geometry": {"type": "Point", "coordinates": [1, 1]}, "$maxDistance": 50000}}}`
	within := `{"loc": {"$geoWithin": {"$centerSphere": [[1, 1], 0.0078]}}}`
	indexed, plain := benchGeoEngine(b, n, true), benchGeoEngine(b, n, false)
	nearAll := `{"loc": {"$near": {"$geometry": {"type": "Point", "coordinates": [1, 1]}}}}`
	for _, bc := range []struct {
		name   string
		e      *Engine
		filter string
		limit  int64
	}{
		{"near50km/2dsphere", indexed, near, 0},
		{"nearest10/2dsphere", indexed, nearAll, 10},
		{"within50km/2dsphere", indexed, within, 0},
		{"within50km/collscan", plain, within, 0},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var filter bson.D
			if err := bson.UnmarshalExtJSON([]byte(bc.filter), false, &filter); err != nil {
				b.Fatal(err)
			}
			p := FindParams{Filter: filter, Limit: bc.limit}
			for b.Loop() {
				it, _, err := bc.e.Find("t", "c", p)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := drain(it); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
