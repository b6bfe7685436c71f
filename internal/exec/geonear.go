package exec

import (
	"math"
	"sort"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/geo"
	"github.com/relaydb/relaydb/internal/mongoerr"
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

// geoNearSource reads plan's index ranges, keeps each document once with
// its distance when within the bounds, and yields them nearest first
// (ties in scan order).
func geoNearSource(col *catalog.Collection, plan *Plan, snap *catalog.Snapshot) (Iterator, error) {
	scan := &multiScan{col: col, plan: plan, snap: snap}
	defer scan.Close()
	seen := map[string]bool{}
	var out []nearRow
	bytes := 0
	for r, ok := scan.Next(); ok; r, ok = scan.Next() {
		id := string(bson.Raw(r.Raw).Lookup("_id").Value)
		if seen[id] {
			continue
		}
		seen[id] = true
		doc, err := r.decoded()
		if err != nil {
			return nil, err
		}
		d := nearDistance(plan.Geo, doc)
		if math.IsInf(d, 1) || !plan.Geo.near.InRange(d) {
			continue
		}
		if bytes += len(r.Raw); bytes > maxNearBytes {
			return nil, mongoerr.New(mongoerr.QueryExceededMemoryLimitNoDiskUseAllowed,
				"geo near candidates exceeded memory limit of %d bytes", maxNearBytes)
		}
		out = append(out, nearRow{row: r, dist: d})
	}
	if err := scan.Err(); err != nil {
		return nil, err
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].dist < out[j].dist })
	rs := make([]*Row, len(out))
	for i, nr := range out {
		rs[i] = nr.row
	}
	return rows(rs), nil
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
