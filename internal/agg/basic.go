package agg

import (
	"math"
	"math/rand/v2"
	"sort"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/query"
)

type matchStage struct{ m *query.Matcher }

func compileMatch(spec any, cc *compileCtx) ([]stage, error) {
	d, ok := spec.(bson.D)
	if !ok {
		return nil, mongoerr.New(15959, "the match filter must be an expression in an object")
	}
	m, err := query.CompileWithVars(d, cc.scopeVars())
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
		return nil, mongoerr.New(15957, "the limit must be specified as a number")
	}
	if !ok {
		return nil, mongoerr.New(15957, "the limit must be an integer")
	}
	if n <= 0 {
		return nil, mongoerr.New(15958, "the limit must be positive")
	}
	return []stage{&limitStage{n: n}}, nil
}

func (s *limitStage) run(in Iterator, _ *runCtx) Iterator {
	seen := int64(0)
	return &funcIter{close: in.Close, next: func() (bson.D, bool, error) {
		if seen >= s.n {
			return nil, false, nil
		}
		seen++
		return in.Next()
	}}
}

type skipStage struct{ n int64 }

func compileSkip(spec any, _ *compileCtx) ([]stage, error) {
	n, ok := bsonx.AsInt64(spec)
	if !bsonx.IsNumber(spec) || !ok {
		return nil, mongoerr.New(15972, "Argument to $skip must be a number")
	}
	if n < 0 {
		return nil, mongoerr.New(15956, "Argument to $skip cannot be negative")
	}
	return []stage{&skipStage{n: n}}, nil
}

func (s *skipStage) run(in Iterator, _ *runCtx) Iterator {
	skipped := int64(0)
	return &funcIter{close: in.Close, next: func() (bson.D, bool, error) {
		for skipped < s.n {
			skipped++
			if _, ok, err := in.Next(); err != nil || !ok {
				return nil, false, err
			}
		}
		return in.Next()
	}}
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
		return nil, mongoerr.New(15973, "the $sort key specification must be an object")
	}
	if len(d) == 0 {
		return nil, mongoerr.New(15976, "$sort stage must have at least one sort key")
	}
	s, err := query.CompileSort(d)
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

func (s *sortStage) run(in Iterator, _ *runCtx) Iterator {
	if s.skip {
		return in
	}
	return blockingIter(in, func(docs []bson.D) ([]bson.D, error) {
		return s.sortDocs(docs), nil
	})
}

type keyed struct {
	doc bson.D
	key query.Key
}

// sortDocs sorts stably by the spec; with a limit it keeps a bounded,
// sorted buffer (top-k).
func (s *sortStage) sortDocs(docs []bson.D) []bson.D {
	k := s.limit
	if k <= 0 || k > int64(len(docs)) {
		k = int64(len(docs))
	}
	buf := make([]keyed, 0, k)
	for _, d := range docs {
		kd := keyed{doc: d, key: s.s.Key(d)}
		pos := sort.Search(len(buf), func(i int) bool { return s.s.CompareKeys(buf[i].key, kd.key) > 0 })
		if int64(pos) >= k {
			continue
		}
		if int64(len(buf)) < k {
			buf = append(buf, keyed{})
		}
		copy(buf[pos+1:], buf[pos:len(buf)-1])
		buf[pos] = kd
	}
	out := make([]bson.D, len(buf))
	for i, kd := range buf {
		out[i] = kd.doc
	}
	return out
}

type sampleStage struct{ size int64 }

func compileSample(spec any, _ *compileCtx) ([]stage, error) {
	d, ok := spec.(bson.D)
	if !ok {
		return nil, mongoerr.New(28745, "the $sample stage specification must be an object")
	}
	size := int64(-1)
	for _, e := range d {
		if e.Key != "size" {
			return nil, mongoerr.New(28748, "unrecognized option to $sample: %s", e.Key)
		}
		n, ok := bsonx.AsInt64(e.Value)
		if !bsonx.IsNumber(e.Value) || !ok {
			f, isNum := bsonx.AsFloat64(e.Value)
			if !isNum || math.IsNaN(f) {
				return nil, mongoerr.New(28746, "size argument to $sample must be a number")
			}
			n = int64(f)
		}
		if n < 0 {
			return nil, mongoerr.New(28747, "size argument to $sample must not be negative")
		}
		size = n
	}
	if size < 0 {
		return nil, mongoerr.New(28749, "$sample stage must specify a size")
	}
	return []stage{&sampleStage{size: size}}, nil
}

func (s *sampleStage) run(in Iterator, rc *runCtx) Iterator {
	r := rc.env.Rand
	if r == nil {
		r = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	return blockingIter(in, func(docs []bson.D) ([]bson.D, error) {
		r.Shuffle(len(docs), func(i, j int) { docs[i], docs[j] = docs[j], docs[i] })
		if int64(len(docs)) > s.size {
			docs = docs[:s.size]
		}
		return docs, nil
	})
}
