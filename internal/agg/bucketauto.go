package agg

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/query"
)

// $bucketAuto sorts the documents by groupBy (the sorter's memory limit
// and spilling apply), then fills buckets of about n/buckets documents in
// order as MongoDB does: a bucket also takes every following document with
// its last value (or, with a granularity, below its rounded-up bound);
// the last bucket takes the rest. _id is {min, max}, min inclusive, max
// exclusive but for the last bucket. The buckets' accumulators count
// against the $group memory limit (292 past it: they cannot spill).

const bucketAutoField = "__relaydb_bucketauto_key"

type bucketAutoStage struct {
	groupBy expr.Expr
	buckets int
	accs    []accSpec
	gran    *rounder
	sort    *query.Sort
}

func compileBucketAuto(spec any, cc *compileCtx) ([]stage, error) {
	d, ok := spec.(bson.D)
	if !ok {
		return nil, mongoerr.New(mongoerr.BucketAutoBadSpec, "The argument to $bucketAuto must be an object, but found type: %s", typeOf(spec))
	}
	s := &bucketAutoStage{}
	hasBuckets := false
	for _, e := range d {
		var err error
		switch e.Key {
		case "groupBy":
			s.groupBy, err = compileGroupBy(e.Value, cc)
		case "buckets":
			s.buckets, err = bucketCount(e.Value)
			hasBuckets = true
		case "output":
			s.accs, err = compileBucketOutput(e.Value, cc)
		case "granularity":
			s.gran, err = granularityRounder(e.Value)
		default:
			err = mongoerr.New(mongoerr.BucketAutoUnknownOption, "Unrecognized option to $bucketAuto: %s", e.Key)
		}
		if err != nil {
			return nil, err
		}
	}
	if s.groupBy == nil || !hasBuckets {
		return nil, mongoerr.New(mongoerr.BucketAutoNeedsGroupBy, "$bucketAuto requires 'groupBy' and 'buckets' to be specified")
	}
	if s.accs == nil {
		a, _ := compileAccumulator("count", bson.D{{Key: "$sum", Value: int32(1)}}, cc)
		s.accs = []accSpec{a}
	}
	s.sort, _ = query.CompileSort(bson.D{{Key: bucketAutoField, Value: int32(1)}})
	return []stage{s}, nil
}

func compileGroupBy(v any, cc *compileCtx) (expr.Expr, error) {
	str, isStr := v.(string)
	d, isDoc := v.(bson.D)
	if !(isStr && len(str) > 0 && str[0] == '$') && !(isDoc && len(d) > 0 && len(d[0].Key) > 0 && d[0].Key[0] == '$') {
		return nil, mongoerr.New(mongoerr.BucketAutoBadGroupBy, "The $bucketAuto 'groupBy' field must be defined as a $-prefixed path or an expression object, but found: %s", show(v))
	}
	return cc.compileExpr(v)
}

func bucketCount(v any) (int, error) {
	if !bsonx.IsNumber(v) {
		return 0, mongoerr.New(mongoerr.BucketAutoBucketsNotNum, "The $bucketAuto 'buckets' field must be a numeric value, but found type: %s", typeOf(v))
	}
	n, isInt := bsonx.AsInt64(v)
	if !isInt || n > 1<<31-1 || n < -1<<31 {
		return 0, mongoerr.New(mongoerr.BucketAutoBucketsNotInt, "The $bucketAuto 'buckets' field must be representable as a 32-bit integer, but found %s", show(v))
	}
	if n <= 0 {
		return 0, mongoerr.New(mongoerr.BucketAutoBadBuckets, "The $bucketAuto 'buckets' field must be greater than 0, but found: %d", n)
	}
	return int(n), nil
}

func compileBucketOutput(v any, cc *compileCtx) ([]accSpec, error) {
	o, ok := v.(bson.D)
	if !ok {
		return nil, mongoerr.New(mongoerr.BucketAutoOutputNotObj, "The $bucketAuto 'output' field must be an object, but found type: %s", typeOf(v))
	}
	accs := []accSpec{}
	for _, e := range o {
		a, err := compileAccumulator(e.Key, e.Value, cc)
		if err != nil {
			return nil, err
		}
		accs = append(accs, a)
	}
	return accs, nil
}

func (s *bucketAutoStage) run(in Iterator, rc *runCtx) Iterator {
	count := 0
	keyed := mapIter(in, func(d bson.D) (bson.D, error) {
		v, err := s.groupBy.Eval(d, rc.varsFor(d))
		if err != nil {
			return nil, err
		}
		if expr.IsMissing(v) {
			v = nil
		}
		if err := s.gran.check(v); err != nil {
			return nil, err
		}
		count++
		return append(bson.D{{Key: bucketAutoField, Value: v}}, d...), nil
	})
	sorted := sortIter(keyed, s.sort, 0, rc.lim)
	return lazyIter(sorted, func() (Iterator, error) {
		b := &bucketFiller{s: s, in: sorted, rc: rc}
		out, err := b.fill(func() int { return count })
		return Slice(out), err
	}, func() {})
}
