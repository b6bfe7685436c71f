package agg

import (
	"fmt"
	"math"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
)

// $median and $percentile (method "approximate") keep every numeric
// input and answer with MongoDB's discrete sort-and-rank percentile: the
// value at rank ceil(p*n)-1 of the sorted inputs. MongoDB 7.0 computes
// the same for its "approximate" method (its t-digest is not used yet),
// so results match exactly.
//
// TODO(#14): a bounded digest for large groups; today the values count
// against the group memory limit (8 bytes each), spilling or failing 292.

func compilePercentileAccumulator(op string, arg any, cc *compileCtx) (expr.Expr, func() accumulator, error) {
	input, ps, err := expr.ParsePercentileSpec(op, arg, cc.vars)
	if err != nil {
		return nil, nil, err
	}
	mk := func() accumulator { return &pctAcc{ps: ps, median: op == "$median"} }
	return input, mk, nil
}

type pctAcc struct {
	ps     []float64
	median bool
	vals   []float64
}

func (a *pctAcc) add(v any) (int64, error) {
	if f, ok := numberAsFloat(v); ok {
		a.vals = append(a.vals, f)
		return 8, nil
	}
	return 0, nil
}

func (a *pctAcc) result() any {
	slices.Sort(a.vals)
	return expr.PercentileResult(a.vals, a.ps, a.median)
}

func (a *pctAcc) partial() any {
	arr := make(bson.A, len(a.vals))
	for i, f := range a.vals {
		arr[i] = f
	}
	return arr
}

func (a *pctAcc) merge(p any) (int64, error) { return addEach(a.add, p) }

// show renders a value for an error message, roughly as the shell would.
func show(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("%q", x)
	case nil:
		return "null"
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return fmt.Sprint(x)
		}
	}
	return fmt.Sprintf("%v", v)
}
