package exec

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/collation"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Plan is a chosen access path for one collection.
type Plan struct {
	Kind      string // "IDHACK", "IXSCAN" or "COLLSCAN" (MongoDB's stage names)
	Index     *catalog.Index
	Intervals []interval // IXSCAN: byte ranges, in scan order
	Reverse   bool
	ID        any // IDHACK: the _id looked up
	// SortCovered is true when the scan order already satisfies the sort.
	SortCovered bool
	// Bounds is explain's indexBounds of an IXSCAN (MongoDB's strings).
	Bounds bson.D
	// Geo is the origin and path of a GEO_NEAR plan (geo.go).
	Geo *geoNearSpec
	// Text is the $text search of a TEXT plan (text.go), or of a
	// COLLSCAN under $or.
	Text *textSearch
}

type interval struct{ lo, hi []byte }

// planInput is what the planner looks at.
type planInput struct {
	filter bson.D
	sort   bson.D
	hint   any                 // index name (string) or key pattern (bson.D); nil = none
	coll   *collation.Collator // the query's collation; nil = simple
}

// forIndex is what idx may use of preds and in under in.coll (collation.go).
func (in planInput) forIndex(idx *catalog.Index, preds map[string]*pred) (map[string]*pred, planInput) {
	in.sort = sortFor(idx, in.sort, in.coll)
	return predsFor(idx, preds, in.coll), in
}

// choosePlan picks the access path for coll.
func choosePlan(coll *catalog.Collection, in planInput) (*Plan, error) {
	if gp, err := geoPlan(coll, in); gp != nil || err != nil {
		return gp, err
	}
	preds := predicates(in.filter)
	if h, ok := in.hint.(bson.D); ok && len(h) == 1 && h[0].Key == "$natural" {
		n, _ := bsonx.AsFloat64(h[0].Value)
		return &Plan{Kind: "COLLSCAN", Reverse: n < 0}, nil
	}
	if in.hint != nil {
		idx, err := hintedIndex(coll, in.hint)
		if err != nil {
			return nil, err
		}
		ip, iin := in.forIndex(idx, preds)
		if p := uncoverSort(planIndex(idx, ip, iin, true), in, iin); p != nil {
			return p, nil
		}
		// A wildcard index answers only a predicate on a field it covers.
		return nil, mongoerr.New(mongoerr.BadValue, "error processing query: planner returned error :: caused by :: hint provided does not correspond to an existing index")
	}
	if id, ok := idEquality(in.filter, preds); ok && (in.coll == nil || !hasStrings(id)) {
		return &Plan{Kind: "IDHACK", ID: id, SortCovered: true}, nil
	}
	var best *Plan
	bestScore := 0
	for _, idx := range coll.VisibleIndexes() {
		if idx.IsText() {
			continue // only $text uses a text index (textPlan)
		}
		ip, iin := in.forIndex(idx, preds)
		if idx.Partial != nil && !partialUsable(idx, ip) {
			continue
		}
		p := uncoverSort(planIndex(idx, ip, iin, false), in, iin)
		if p == nil {
			continue
		}
		if s := score(p, p.Index, ip, iin.sort); s > bestScore {
			best, bestScore = p, s
		}
	}
	if best != nil {
		return best, nil
	}
	return &Plan{Kind: "COLLSCAN", Reverse: naturalReverse(in.sort)}, nil
}

// idEquality reports a filter that is exactly {_id: <scalar>}.
func idEquality(filter bson.D, preds map[string]*pred) (any, bool) {
	if len(filter) != 1 || filter[0].Key != "_id" {
		return nil, false
	}
	p := preds["_id"]
	if p == nil || len(p.eq) != 1 {
		return nil, false
	}
	return p.eq[0], true
}

func naturalReverse(sort bson.D) bool {
	if len(sort) == 1 && sort[0].Key == "$natural" {
		n, _ := bsonx.AsFloat64(sort[0].Value)
		return n < 0
	}
	return false
}

func hintedIndex(coll *catalog.Collection, hint any) (*catalog.Index, error) {
	for _, idx := range coll.VisibleIndexes() {
		switch h := hint.(type) {
		case string:
			if idx.Name == h {
				return idx, nil
			}
		case bson.D:
			if bsonx.Equal(idx.Key, h) {
				return idx, nil
			}
		}
	}
	return nil, mongoerr.New(mongoerr.BadValue, "error processing query: planner returned error :: caused by :: hint provided does not correspond to an existing index")
}

// score ranks usable plans: more equality fields, then a range, then sort.
func score(p *Plan, idx *catalog.Index, preds map[string]*pred, sort bson.D) int {
	s := 0
	keys := idx.Key
	if len(keys) == 2 && keys[0].Key == "$_path" {
		keys = keys[1:] // a wildcard index's view (wildcardPlan)
		if preds[keys[0].Key] == nil {
			return 1 // a {field: {$exists: true}} plan (wildcardExistsPlan)
		}
	}
	for _, f := range keys {
		if f.Key == "$_path" {
			continue // a compound wildcard view's path slot (wildcard_compound.go)
		}
		pr := preds[f.Key]
		if pr == nil {
			break
		}
		if len(pr.eq) == 1 {
			s += 10
			continue
		}
		if len(pr.eq) > 1 {
			s += 6
		} else {
			s += 5
		}
		break
	}
	if s > 0 && idx.Unique {
		s += 2
	}
	if p.SortCovered && len(sort) > 0 {
		s += 3
	}
	return s
}

// planIndex is indexPlan, with the filter a wildcard index also reads.
func planIndex(idx *catalog.Index, preds map[string]*pred, in planInput, forced bool) *Plan {
	if idx.CompoundWildcard() >= 0 {
		return compoundWildcardPlan(idx, preds, in.sort, forced) // wildcard_compound.go
	}
	if _, ok := idx.WildcardPrefix(); ok {
		return wildcardPlan(idx, preds, in.filter, in.sort, forced)
	}
	return indexPlan(idx, preds, in.sort, forced)
}
