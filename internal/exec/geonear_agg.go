package exec

import (
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/geo"
	"github.com/relaydb/relaydb/internal/iterx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/query"
)

// geoNearDocs runs a pipeline's leading $geoNear as a $near query on the
// stage's key and yields the documents nearest first with their distance
// (and location) set.
func (e *Engine) geoNearDocs(db, coll string, gn *agg.GeoNearSpec, p AggregateParams) (agg.Iterator, error) {
	col := e.cat.Collection(db, coll)
	if col == nil {
		return agg.GeoNearInput(agg.Slice(nil)), nil
	}
	key, err := geoNearKey(col, gn.Key)
	if err != nil {
		return nil, err
	}
	filter := bson.D{{Key: key, Value: geoNearOps(gn)}}
	if len(gn.Query) > 0 {
		filter = bson.D{{Key: "$and", Value: bson.A{filter, gn.Query}}}
	}
	it, plan, err := e.Find(db, coll, FindParams{Filter: filter, AllowDiskUse: p.AllowDiskUse, Vars: p.Vars,
		Snapshot: p.Snapshot, Owned: p.Owned, Collation: p.Collation})
	if err != nil {
		return nil, err
	}
	if plan.Geo == nil {
		it.Close()
		return agg.GeoNearInput(agg.Slice(nil)), nil
	}
	return agg.GeoNearInput(iterx.Map(docsOf(it), func(doc bson.D) (bson.D, error) {
		dist, loc := nearestLocation(plan.Geo, doc)
		return gn.Annotate(doc, dist, loc), nil
	})), nil
}

// geoNearOps is the $near/$nearSphere operator document of a $geoNear.
func geoNearOps(gn *agg.GeoNearSpec) bson.D {
	op, origin := "$near", gn.Near
	if d, ok := gn.Near.(bson.D); ok {
		if _, isGeoJSON := bsonx.Get(d, "type"); isGeoJSON {
			op, origin = "$nearSphere", bson.D{{Key: "$geometry", Value: d}}
		}
	}
	if gn.Spherical {
		op = "$nearSphere"
	}
	ops := bson.D{{Key: op, Value: origin}}
	if gn.MaxDistance != nil {
		ops = append(ops, bson.E{Key: "$maxDistance", Value: gn.MaxDistance})
	}
	if gn.MinDistance != nil {
		ops = append(ops, bson.E{Key: "$minDistance", Value: gn.MinDistance})
	}
	return ops
}

// geoNearKey is the path of the geo index $geoNear uses: key's, or that
// of the collection's only 2d index, else its only 2dsphere index.
func geoNearKey(col *catalog.Collection, key string) (string, error) {
	var flat, sphere []string
	for _, idx := range col.VisibleIndexes() {
		for _, f := range idx.Key {
			switch catalog.GeoKind(f.Value) {
			case "2d":
				flat = append(flat, f.Key)
			case "2dsphere":
				sphere = append(sphere, f.Key)
			}
		}
	}
	if key != "" {
		for _, k := range append(flat, sphere...) {
			if k == key {
				return key, nil
			}
		}
		return "", mongoerr.New(mongoerr.IndexNotFound, "$geoNear requires a 2d or 2dsphere index on %s, but none were found", key)
	}
	switch {
	case len(flat) > 1:
		return "", mongoerr.New(mongoerr.IndexNotFound, "There is more than one 2d index on %s; unsure which to use for $geoNear", col.NS())
	case len(flat) == 1:
		return flat[0], nil
	case len(sphere) > 1:
		return "", mongoerr.New(mongoerr.IndexNotFound, "There is more than one 2dsphere index on %s; unsure which to use for $geoNear", col.NS())
	case len(sphere) == 1:
		return sphere[0], nil
	}
	return "", mongoerr.New(mongoerr.IndexNotFound, "$geoNear requires a 2d or 2dsphere index, but none were found")
}

// nearestLocation returns the distance to doc's nearest location at the
// spec's path and that location's value.
func nearestLocation(s *geoNearSpec, doc bson.D) (float64, any) {
	best, bestLoc := math.Inf(1), any(nil)
	for _, loc := range catalog.GeoLocations(doc, s.path) {
		query.EachLocation(loc, func(g *geo.Geometry) bool {
			if d := s.near.Distance(g); d < best {
				best, bestLoc = d, loc
			}
			return false
		})
	}
	return best, bestLoc
}
