package agg

import (
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/iterx"
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
		return nil, mongoerr.New(mongoerr.StageSpecNotObject, "the $facet specification must be a non-empty object")
	}
	if len(d) == 0 {
		return nil, mongoerr.New(mongoerr.FacetSpecEmpty, "the $facet specification must be a non-empty object")
	}
	s := &facetStage{}
	for _, e := range d {
		if _, err := splitDotted(e.Key); err != nil {
			return nil, err
		}
		arr, ok := e.Value.(bson.A)
		if !ok {
			return nil, mongoerr.New(mongoerr.FacetArgNotArray, "arguments to $facet must be arrays, %s is type %s", e.Key, typeOf(e.Value))
		}
		if len(arr) == 0 {
			return nil, mongoerr.New(mongoerr.FacetEmptySubPipeline, "sub-pipeline in $facet stage cannot be empty")
		}
		for _, st := range arr {
			if name, _, err := splitStage(st); err == nil && notInFacet[name] {
				return nil, mongoerr.New(mongoerr.StageNotAllowedInFacet, "%s is not allowed to be used within a $facet stage", name)
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

// run buffers the input once (spooled to disk past the facet buffer
// limit with allowDiskUse, else 292) and replays it through each
// sub-pipeline. The output document is bounded by the facet output limit.
// MongoDB streams its input through the sub-pipelines in batches instead
// and so never fails on input size alone.
func (s *facetStage) run(in Iterator, rc *runCtx) Iterator {
	sp := &spool{spill: spillSet{l: rc.lim}, limit: rc.lim.facetBufferBytes}
	return lazyIter(in, func() (Iterator, error) {
		if err := sp.drain(in); err != nil {
			return nil, err
		}
		out, err := s.runFacets(sp, rc)
		if err != nil {
			return nil, err
		}
		return Slice([]bson.D{out}), nil
	}, sp.spill.removeAll)
}

func (s *facetStage) runFacets(sp *spool, rc *runCtx) (bson.D, error) {
	out := make(bson.D, 0, len(s.facets))
	size := int64(5)
	for _, f := range s.facets {
		src, err := sp.replay()
		if err != nil {
			return nil, err
		}
		it := f.p.runWith(src, rc, -1)
		arr := bson.A{}
		for {
			d, ok, err := pull(it)
			if err != nil || !ok {
				it.Close()
				if err != nil {
					return nil, err
				}
				break
			}
			if size += docSize(d) + 8; size > rc.lim.facetOutputBytes {
				it.Close()
				return nil, mongoerr.New(mongoerr.FacetOutputTooLarge, "PlanExecutor error during aggregation :: caused by :: document constructed by $facet is %d bytes, which exceeds the limit of %d bytes", size, rc.lim.facetOutputBytes)
			}
			arr = append(arr, d)
		}
		out = append(out, bson.E{Key: f.name, Value: arr})
	}
	return out, nil
}

// spool holds a stream of documents to be read several times: in memory
// up to limit bytes, then in runs on disk (allowDiskUse) or 292.
type spool struct {
	spill spillSet
	limit int64
	mem   []bson.D
	bytes int64
}

func (sp *spool) drain(in Iterator) error {
	for {
		d, ok, err := pull(in)
		if err != nil || !ok {
			return err
		}
		sp.mem = append(sp.mem, d)
		if sp.bytes += docSize(d) + itemOverhead; sp.bytes > sp.limit {
			if err := sp.spillMem(); err != nil {
				return err
			}
		}
	}
}

func (sp *spool) spillMem() error {
	if !sp.spill.l.allowDiskUse {
		return facetLimitErr(sp.limit)
	}
	_, err := sp.spill.write("facet", iterx.Consume(sp.mem))
	sp.mem, sp.bytes = nil, 0
	return err
}

// replay returns an iterator over everything drained, in order.
func (sp *spool) replay() (Iterator, error) {
	srcs, err := openRuns(sp.spill.runs, iterx.Consume(slices.Clone(sp.mem)))
	if err != nil {
		return nil, err
	}
	i := 0
	next := func() (bson.D, bool, error) {
		for i < len(srcs) {
			d, ok, err := pull(srcs[i])
			if err != nil || ok {
				return d, ok, err
			}
			_ = srcs[i].Close()
			i++
		}
		return nil, false, nil
	}
	return iterx.Func(next, func() error {
		err := closeAll(srcs[i:])
		i = len(srcs)
		return err
	}), nil
}
