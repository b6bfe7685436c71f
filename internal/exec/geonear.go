package exec

import (
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/geo"
	"github.com/relaydb/relaydb/internal/query"
)

// maxNearBytes bounds the candidates a GEO_NEAR plan holds to sort by
// distance (as a blocking sort's memory limit).
const maxNearBytes = maxSortBytes

// nearRow is a candidate with its distance.
type nearRow struct {
	row  *Row
	dist float64
}

// geoNearSource yields the documents of a GEO_NEAR plan nearest first
// (nearIter).
func geoNearSource(col *catalog.Collection, plan *Plan, snap *catalog.Snapshot) (Iterator, error) {
	n := plan.Geo.near
	r := n.StartRadius(plan.Geo.grid)
	if !math.IsInf(n.Max, 1) {
		r = math.Max(r, n.Max/(nearGrowth*nearGrowth)) // at most three rounds
	}
	return &nearIter{col: col, plan: plan, snap: snap, r: r, emitted: map[string]bool{}}, nil
}

// nearDistance is the distance from the origin to the nearest location
// of doc at the spec's path (+Inf when it has none).
func nearDistance(s *geoNearSpec, doc bson.D) float64 {
	best := math.Inf(1)
	for _, loc := range catalog.GeoLocations(doc, s.path) {
		query.EachLocation(loc, func(g *geo.Geometry) bool {
			best = math.Min(best, s.near.Distance(g))
			return false
		})
	}
	return best
}

// NearDistance is nearDistance for the $geoNear stage.
func (p *Plan) NearDistance(doc bson.D) float64 { return nearDistance(p.Geo, doc) }

// geoNearPlanDoc is explain's GEO_NEAR stage over FETCH and IXSCAN.
// TODO(#14): executionStats of a GEO_NEAR plan count the documents
// returned, not the keys and documents each round examined.
func geoNearPlanDoc(plan *Plan, p FindParams) bson.D {
	ix := bson.D{
		{Key: "stage", Value: "IXSCAN"},
		{Key: "keyPattern", Value: plan.Index.Key},
		{Key: "indexName", Value: plan.Index.Name},
		{Key: "isMultiKey", Value: plan.Index.Multikey},
		{Key: "isUnique", Value: false},
		{Key: "isSparse", Value: plan.Index.Sparse},
		{Key: "isPartial", Value: plan.Index.Partial != nil},
		{Key: "indexVersion", Value: int32(2)},
		{Key: "direction", Value: "forward"},
		{Key: "indexBounds", Value: plan.Bounds},
	}
	fetch := bson.D{{Key: "stage", Value: "FETCH"}}
	if len(p.Filter) > 0 {
		fetch = append(fetch, bson.E{Key: "filter", Value: p.Filter})
	}
	fetch = append(fetch, bson.E{Key: "inputStage", Value: ix})
	return bson.D{
		{Key: "stage", Value: plan.Kind},
		{Key: "keyPattern", Value: plan.Index.Key},
		{Key: "indexName", Value: plan.Index.Name},
		{Key: "indexVersion", Value: int32(2)},
		{Key: "inputStages", Value: bson.A{fetch}},
	}
}
