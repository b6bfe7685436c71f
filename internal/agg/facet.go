package agg

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

type facet struct {
	name string
	p    *Pipeline
}

type facetStage struct{ facets []facet }

var notInFacet = map[string]bool{
	"$facet": true, "$out": true, "$merge": true, "$collStats": true,
	"$indexStats": true, "$geoNear": true, "$changeStream": true,
}

func compileFacet(spec any, cc *compileCtx) ([]stage, error) {
	d, ok := spec.(bson.D)
	if !ok {
		return nil, mongoerr.New(15947, "the $facet specification must be a non-empty object")
	}
	if len(d) == 0 {
		return nil, mongoerr.New(40169, "the $facet specification must be a non-empty object")
	}
	s := &facetStage{}
	for _, e := range d {
		if _, err := splitDotted(e.Key); err != nil {
			return nil, err
		}
		arr, ok := e.Value.(bson.A)
		if !ok {
			return nil, mongoerr.New(40170, "arguments to $facet must be arrays, %s is type %s", e.Key, typeOf(e.Value))
		}
		if len(arr) == 0 {
			return nil, mongoerr.New(40171, "sub-pipeline in $facet stage cannot be empty")
		}
		for _, st := range arr {
			if name, _, err := splitStage(st); err == nil && notInFacet[name] {
				return nil, mongoerr.New(40600, "%s is not allowed to be used within a $facet stage", name)
			}
		}
		p, err := compileStages(arr, cc)
		if err != nil {
			return nil, err
		}
		s.facets = append(s.facets, facet{name: e.Key, p: p})
	}
	return []stage{s}, nil
}

func (s *facetStage) run(in Iterator, rc *runCtx) Iterator {
	return blockingIter(in, func(docs []bson.D) ([]bson.D, error) {
		out := make(bson.D, 0, len(s.facets))
		for _, f := range s.facets {
			res, err := Drain(f.p.runWith(Slice(docs), rc, -1))
			if err != nil {
				return nil, err
			}
			arr := make(bson.A, len(res))
			for i, r := range res {
				arr[i] = r
			}
			out = append(out, bson.E{Key: f.name, Value: arr})
		}
		return []bson.D{out}, nil
	})
}
