package agg

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// GeoNearSpec is a parsed $geoNear stage. The stage reads the collection
// through its geo index, so the executor runs it (exec's geoNearDocs):
// it finds the documents matching Query nearest first, sets
// DistanceField (times DistanceMultiplier) and IncludeLocs, and feeds
// them to the rest of the pipeline; the compiled stage itself passes
// documents through.
type GeoNearSpec struct {
	Near          any // GeoJSON point or legacy pair
	DistanceField string
	Spherical     bool
	MaxDistance   any // nil when absent
	MinDistance   any
	Query         bson.D
	Key           string
	IncludeLocs   string
	// DistanceMultiplier scales the distances written (default 1).
	DistanceMultiplier float64
}

type geoNearStage struct{ spec GeoNearSpec }

// geoNearInput marks the documents the executor produced for a leading
// $geoNear (GeoNearInput); any other input means the stage sits where no
// geo index is read (a $lookup or $unionWith sub-pipeline).
type geoNearInput struct{ Iterator }

// GeoNearInput wraps the executor's $geoNear results for Run.
func GeoNearInput(it Iterator) Iterator { return geoNearInput{it} }

func (s *geoNearStage) run(in Iterator, _ *runCtx) Iterator {
	if g, ok := in.(geoNearInput); ok {
		return g.Iterator
	}
	// TODO(#14): $geoNear in $lookup and $unionWith sub-pipelines.
	return &failedIter{in: in, err: mongoerr.New(mongoerr.NotImplemented,
		"$geoNear is supported only as the first stage of an aggregate on a collection")}
}

// failedIter yields nothing and reports err.
type failedIter struct {
	in  Iterator
	err error
}

func (f *failedIter) Next() (bson.D, bool) { return nil, false }
func (f *failedIter) Err() error           { return f.err }
func (f *failedIter) Close() error         { return f.in.Close() }

// GeoNear returns the pipeline's leading $geoNear, or nil.
func (p *Pipeline) GeoNear() *GeoNearSpec {
	if len(p.stages) == 0 {
		return nil
	}
	if g, ok := p.stages[0].(*geoNearStage); ok {
		return &g.spec
	}
	return nil
}

func compileGeoNear(spec any, cc *compileCtx) ([]stage, error) {
	if !cc.first {
		return nil, mongoerr.New(mongoerr.GeoNearNotFirst, "$geoNear was not the first stage in the pipeline.")
	}
	d, ok := spec.(bson.D)
	if !ok {
		return nil, mongoerr.New(mongoerr.StageSpecNotObject, "$geoNear argument must be an object, but found %s", typeOf(spec))
	}
	s := GeoNearSpec{DistanceMultiplier: 1}
	for _, e := range d {
		if err := s.set(e); err != nil {
			return nil, err
		}
	}
	if s.Near == nil {
		return nil, mongoerr.New(mongoerr.BadValue, "$geoNear requires a 'near' argument")
	}
	if s.DistanceField == "" {
		return nil, mongoerr.New(mongoerr.GeoNearNeedsDistField, "$geoNear requires a 'distanceField' option as a String")
	}
	return []stage{&geoNearStage{spec: s}}, nil
}

// set reads one $geoNear option.
func (s *GeoNearSpec) set(e bson.E) error {
	var ok bool
	switch e.Key {
	case "near":
		s.Near, ok = e.Value, isDocOrArray(e.Value)
	case "distanceField":
		s.DistanceField, ok = e.Value.(string)
	case "includeLocs":
		s.IncludeLocs, ok = e.Value.(string)
	case "key":
		s.Key, ok = e.Value.(string)
		if ok && s.Key == "" {
			return mongoerr.New(mongoerr.BadValue, "$geoNear parameter 'key' cannot be the empty string")
		}
	case "spherical":
		s.Spherical, ok = expr.Truthy(e.Value), true
	case "maxDistance", "minDistance":
		_, ok = bsonx.AsFloat64(e.Value)
		if e.Key == "maxDistance" {
			s.MaxDistance = e.Value
		} else {
			s.MinDistance = e.Value
		}
	case "query":
		s.Query, ok = e.Value.(bson.D)
	case "distanceMultiplier":
		s.DistanceMultiplier, ok = bsonx.AsFloat64(e.Value)
		if ok && s.DistanceMultiplier < 0 {
			return mongoerr.New(mongoerr.BadValue, "distanceMultiplier must be nonnegative")
		}
	case "uniqueDocs", "num", "limit":
		// Accepted and ignored by MongoDB 4.2+ ("num"/"limit" are refused there).
		if e.Key != "uniqueDocs" {
			return mongoerr.New(mongoerr.FailedToParse, "$geoNear no longer supports the '%s' parameter. Use a $limit stage instead.", e.Key)
		}
		ok = true
	default:
		return mongoerr.New(mongoerr.FailedToParse, "Unknown argument to $geoNear: %s", e.Key)
	}
	if !ok {
		return mongoerr.New(mongoerr.TypeMismatch, "$geoNear parameter '%s' has the wrong type: %s", e.Key, typeOf(e.Value))
	}
	return nil
}

func isDocOrArray(v any) bool {
	switch v.(type) {
	case bson.D, bson.A:
		return true
	}
	return false
}

// Annotate sets the distance (times DistanceMultiplier) and, when asked,
// the location on doc, as $geoNear outputs them.
func (s *GeoNearSpec) Annotate(doc bson.D, dist float64, loc any) bson.D {
	doc = withPath(doc, strings.Split(s.DistanceField, "."), dist*s.DistanceMultiplier)
	if s.IncludeLocs != "" && loc != nil {
		doc = withPath(doc, strings.Split(s.IncludeLocs, "."), loc)
	}
	return doc
}
