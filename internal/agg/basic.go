package agg

import (
	"math"
	"math/rand/v2"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/iterx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/query"
)

type matchStage struct{ m *query.Matcher }

func compileMatch(spec any, cc *compileCtx) ([]stage, error) {
	d, ok := spec.(bson.D)
	if !ok {
		return nil, mongoerr.New(mongoerr.MatchFilterNotObject, "the match filter must be an expression in an object")
	}
	if err := query.ErrNearInMatch(d); err != nil {
		return nil, err
	}
	text, err := matchText(d, cc)
	if err != nil {
		return nil, err
	}
	// $where is refused in a pipeline's $match (BadValue), as by mongod.
	m, err := query.CompileOptions(d, query.Options{Vars: cc.scopeVars(), Text: text, NoWhere: true, Collator: cc.env.bsonCollator()})
	if err != nil {
		return nil, err
	}
	return []stage{&matchStage{m: m}}, nil
}

func (s *matchStage) run(in Iterator, rc *runCtx) Iterator {
	return mapIter(in, func(d bson.D) (bson.D, error) {
		if ok, _ := s.m.MatchVars(d, rc.vars); ok {
			return d, nil
		}
		return nil, nil
	})
}

type limitStage struct{ n int64 }

func compileLimit(spec any, _ *compileCtx) ([]stage, error) {
	n, ok := bsonx.AsInt64(spec)
	if !bsonx.IsNumber(spec) {
		return nil, mongoerr.New(mongoerr.LimitNotInteger, "the limit must be specified as a number")
	}
	if !ok {
		return nil, mongoerr.New(mongoerr.LimitNotInteger, "the limit must be an integer")
	}
	if n <= 0 {
		return nil, mongoerr.New(mongoerr.LimitNotPositive, "the limit must be positive")
	}
	return []stage{&limitStage{n: n}}, nil
}

func (s *limitStage) run(in Iterator, _ *runCtx) Iterator {
	seen := int64(0)
	return iterx.Func(func() (bson.D, bool, error) {
		if seen >= s.n {
			return nil, false, nil
		}
		seen++
		return pull(in)
	}, in.Close)
}

type skipStage struct{ n int64 }

func compileSkip(spec any, _ *compileCtx) ([]stage, error) {
	n, ok := bsonx.AsInt64(spec)
	if !bsonx.IsNumber(spec) || !ok {
		return nil, mongoerr.New(mongoerr.SkipNotNumber, "Argument to $skip must be a number")
	}
	if n < 0 {
		return nil, mongoerr.New(mongoerr.SkipNegative, "Argument to $skip cannot be negative")
	}
	return []stage{&skipStage{n: n}}, nil
}

func (s *skipStage) run(in Iterator, _ *runCtx) Iterator {
	skipped := int64(0)
	return iterx.Func(func() (bson.D, bool, error) {
		for skipped < s.n {
			skipped++
			if _, ok, err := pull(in); err != nil || !ok {
				return nil, false, err
			}
		}
		return pull(in)
	}, in.Close)
}

type sortStage struct {
	spec  bson.D
	s     *query.Sort
	limit int64 // >0: only the first limit documents are needed (top-k)
	skip  bool  // input is already sorted
}

func compileSort(spec any, _ *compileCtx) ([]stage, error) {
	d, ok := spec.(bson.D)
	if !ok {
		return nil, mongoerr.New(mongoerr.SortKeyNotObject, "the $sort key specification must be an object")
	}
	if len(d) == 0 {
		return nil, mongoerr.New(mongoerr.SortNoKeys, "$sort stage must have at least one sort key")
	}
	s, err := query.CompileSort(textScoreSort(d))
	if err != nil {
		return nil, err
	}
	return []stage{&sortStage{spec: d, s: s}}, nil
}

func (s *sortStage) presorted() stage {
	c := *s
	c.skip = true
	return &c
}

// coalesceSortLimit lets a $sort keep only the first n documents when a
// $limit follows it.
func (p *Pipeline) coalesceSortLimit() {
	for i := 0; i+1 < len(p.stages); i++ {
		s, ok1 := p.stages[i].(*sortStage)
		l, ok2 := p.stages[i+1].(*limitStage)
		if ok1 && ok2 {
			c := *s
			c.limit = l.n
			p.stages[i] = &c
		}
	}
}

func (s *sortStage) run(in Iterator, rc *runCtx) Iterator {
	if s.skip {
		return in
	}
	return sortIter(requireTextScore(in, s.spec), s.s.WithCollator(rc.env.bsonCollator()), s.limit, rc.lim)
}

type sampleStage struct{ size int64 }

func compileSample(spec any, _ *compileCtx) ([]stage, error) {
	d, ok := spec.(bson.D)
	if !ok {
		return nil, mongoerr.New(mongoerr.SampleSpecNotObject, "the $sample stage specification must be an object")
	}
	size := int64(-1)
	for _, e := range d {
		if e.Key != "size" {
			return nil, mongoerr.New(mongoerr.SampleUnknownOption, "unrecognized option to $sample: %s", e.Key)
		}
		n, ok := bsonx.AsInt64(e.Value)
		if !bsonx.IsNumber(e.Value) || !ok {
			f, isNum := bsonx.AsFloat64(e.Value)
			if !isNum || math.IsNaN(f) {
				return nil, mongoerr.New(mongoerr.SampleSizeNotNumber, "size argument to $sample must be a number")
			}
			n = int64(f)
		}
		if n < 0 {
			return nil, mongoerr.New(mongoerr.SampleSizeNegative, "size argument to $sample must not be negative")
		}
		size = n
	}
	if size < 0 {
		return nil, mongoerr.New(mongoerr.SampleMissingSize, "$sample stage must specify a size")
	}
	return []stage{&sampleStage{size: size}}, nil
}

// sampleSort orders the wrapped documents {r: <random>, d: <doc>}.
var sampleSort, _ = query.CompileSort(bson.D{{Key: "r", Value: int32(1)}})

// run sorts by a random key and keeps the first size documents, as
// MongoDB's non-optimized $sample does: a top-k sort, so memory stays at
// size documents and the sort limit applies.
func (s *sampleStage) run(in Iterator, rc *runCtx) Iterator {
	r := rc.env.Rand
	if r == nil {
		r = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	if s.size == 0 {
		return lazyIter(in, func() (Iterator, error) {
			_, err := Drain(in)
			return Slice(nil), err
		}, func() {})
	}
	wrapped := mapIter(in, func(d bson.D) (bson.D, error) {
		return bson.D{{Key: "r", Value: r.Float64()}, {Key: "d", Value: d}}, nil
	})
	return mapIter(sortIter(wrapped, sampleSort, s.size, rc.lim), func(w bson.D) (bson.D, error) {
		return w[1].Value.(bson.D), nil
	})
}
