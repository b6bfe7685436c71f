package agg

import (
	"sort"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// compileBucket turns $bucket into a group whose key is the lower boundary
// of the bucket holding groupBy (or the default), output in boundary order.
// TODO(#2): $bucketAuto.
func compileBucket(spec any, cc *compileCtx) ([]stage, error) {
	d, ok := spec.(bson.D)
	if !ok {
		return nil, mongoerr.New(mongoerr.BucketSpecNotObject, "Argument to $bucket stage must be an object, but found type: %s", typeOf(spec))
	}
	var groupBy expr.Expr
	var bounds bson.A
	var def any
	hasDef := false
	output := bson.D{{Key: "count", Value: bson.D{{Key: "$sum", Value: int32(1)}}}}
	for _, e := range d {
		switch e.Key {
		case "groupBy":
			g, err := cc.compileExpr(e.Value)
			if err != nil {
				return nil, err
			}
			groupBy = g
		case "boundaries":
			b, ok := e.Value.(bson.A)
			if !ok {
				return nil, mongoerr.New(mongoerr.BucketBoundariesNotArray, "The $bucket 'boundaries' field must be an array, but found type: %s", typeOf(e.Value))
			}
			bounds = b
		case "default":
			def, hasDef = e.Value, true
		case "output":
			o, ok := e.Value.(bson.D)
			if !ok {
				return nil, mongoerr.New(mongoerr.BucketOutputNotObject, "The $bucket 'output' field must be an object, but found type: %s", typeOf(e.Value))
			}
			output = o
		default:
			return nil, mongoerr.New(mongoerr.BucketUnknownOption, "Unrecognized option to $bucket: %s", e.Key)
		}
	}
	if groupBy == nil || bounds == nil {
		return nil, mongoerr.New(mongoerr.BucketMissingRequired, "$bucket requires 'groupBy' and 'boundaries' to be specified")
	}
	if err := checkBoundaries(bounds, def, hasDef); err != nil {
		return nil, err
	}
	g := &groupStage{id: groupBy}
	for _, e := range output {
		a, err := compileAccumulator(e.Key, e.Value, cc)
		if err != nil {
			return nil, err
		}
		g.accs = append(g.accs, a)
	}
	g.keyOf = bucketKey(groupBy, bounds, def, hasDef)
	g.order = func(out []bson.D) {
		rank := func(d bson.D) int { return bucketRank(bounds, d[0].Value, hasDef) }
		sort.SliceStable(out, func(i, j int) bool { return rank(out[i]) < rank(out[j]) })
	}
	return []stage{g}, nil
}

func checkBoundaries(bounds bson.A, def any, hasDef bool) error {
	if len(bounds) < 2 {
		return mongoerr.New(mongoerr.BucketTooFewBoundaries, "The $bucket 'boundaries' field must have at least 2 values, but found %d value(s).", len(bounds))
	}
	for i := 1; i < len(bounds); i++ {
		if bsonx.CanonicalType(bounds[i]) != bsonx.CanonicalType(bounds[0]) {
			return mongoerr.New(mongoerr.BucketBoundariesMixedTypes, "All values in the the 'boundaries' option to $bucket must have the same type.")
		}
		if bsonx.Compare(bounds[i-1], bounds[i]) >= 0 {
			return mongoerr.New(mongoerr.BucketBoundariesNotSorted, "The 'boundaries' option to $bucket must be sorted in ascending order")
		}
	}
	if hasDef && bsonx.Compare(def, bounds[0]) >= 0 && bsonx.Compare(def, bounds[len(bounds)-1]) < 0 &&
		bsonx.CanonicalType(def) == bsonx.CanonicalType(bounds[0]) {
		return mongoerr.New(mongoerr.BucketDefaultInRange, "The $bucket 'default' field must be less than the lowest boundary or greater than or equal to the highest boundary.")
	}
	return nil
}

func bucketKey(groupBy expr.Expr, bounds bson.A, def any, hasDef bool) func(bson.D, *expr.Vars) (any, error) {
	return func(d bson.D, vars *expr.Vars) (any, error) {
		v, err := groupBy.Eval(d, vars)
		if err != nil {
			return nil, err
		}
		if i := bucketIndex(bounds, v); i >= 0 {
			return bounds[i], nil
		}
		if !hasDef {
			return nil, mongoerr.New(mongoerr.SwitchNoMatchingBranch, "$switch could not find a matching branch for an input, and no default was specified.")
		}
		return def, nil
	}
}

// bucketIndex returns i with bounds[i] <= v < bounds[i+1], or -1.
func bucketIndex(bounds bson.A, v any) int {
	if expr.IsMissing(v) || bsonx.CanonicalType(v) != bsonx.CanonicalType(bounds[0]) {
		return -1
	}
	for i := 0; i+1 < len(bounds); i++ {
		if expr.Compare(bounds[i], v) <= 0 && expr.Compare(v, bounds[i+1]) < 0 {
			return i
		}
	}
	return -1
}

func bucketRank(bounds bson.A, id any, hasDef bool) int {
	for i := 0; i+1 < len(bounds); i++ {
		if expr.Compare(bounds[i], id) == 0 {
			return i
		}
	}
	return len(bounds)
}
