package expr

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

func registerArray() {
	nary("$size", 1, 1, func(_ string, a []any) (any, error) {
		arr, ok := a[0].(bson.A)
		if !ok {
			return nil, errf(mongoerr.SizeNotArray, "The argument to $size must be an array. Type of argument: %s", typeName(a[0]))
		}
		return int32(len(arr)), nil
	})
	nary("$arrayElemAt", 2, 2, evalArrayElemAt)
	nary("$first", 1, 1, firstLast(true))
	nary("$last", 1, 1, firstLast(false))
	nary("$slice", 2, 3, evalSlice)
	nary("$concatArrays", 0, -1, evalConcatArrays)
	nary("$range", 2, 3, evalRange)
	nary("$reverseArray", 1, 1, func(_ string, a []any) (any, error) {
		if IsNullish(a[0]) {
			return nil, nil
		}
		arr, ok := a[0].(bson.A)
		if !ok {
			return nil, errf(mongoerr.ReverseArrayNotArray, "The argument to $reverseArray must be an array, but was of type: %s", typeName(a[0]))
		}
		out := make(bson.A, len(arr))
		for i, v := range arr {
			out[len(arr)-1-i] = v
		}
		return out, nil
	})
	nary("$isArray", 1, 1, func(_ string, a []any) (any, error) { _, ok := a[0].(bson.A); return ok, nil })
	nary("$indexOfArray", 2, 4, evalIndexOfArray)
	operators["$filter"] = compileFilter
	operators["$map"] = compileMap
	operators["$reduce"] = compileReduce
}

func evalArrayElemAt(name string, a []any) (any, error) {
	if IsNullish(a[0]) || IsNullish(a[1]) {
		return nil, nil
	}
	arr, ok := a[0].(bson.A)
	if !ok {
		return nil, errf(mongoerr.ArrayElemAtNotArray, "$arrayElemAt's first argument must be an array, but is %s", typeName(a[0]))
	}
	if !bsonx.IsNumber(a[1]) {
		return nil, errf(mongoerr.ArrayElemAtIndexNotNumeric, "$arrayElemAt's second argument must be a numeric value, but is %s", typeName(a[1]))
	}
	i, ok := asInt32Arg(a[1])
	if !ok {
		return nil, errf(mongoerr.ArrayElemAtIndexNotInt32, "$arrayElemAt's second argument must be representable as a 32-bit integer: %v", a[1])
	}
	return elemAt(arr, i), nil
}

func elemAt(arr bson.A, i int64) any {
	if i < 0 {
		i += int64(len(arr))
	}
	if i < 0 || i >= int64(len(arr)) {
		return Missing
	}
	return arr[i]
}

func firstLast(first bool) func(string, []any) (any, error) {
	return func(name string, a []any) (any, error) {
		if IsNullish(a[0]) {
			return nil, nil
		}
		arr, ok := a[0].(bson.A)
		if !ok {
			return nil, errf(mongoerr.ArrayElemAtNotArray, "%s's argument must be an array, but is %s", name, typeName(a[0]))
		}
		if first {
			return elemAt(arr, 0), nil
		}
		return elemAt(arr, -1), nil
	}
}

func evalSlice(name string, a []any) (any, error) {
	for _, v := range a {
		if IsNullish(v) {
			return nil, nil
		}
	}
	arr, ok := a[0].(bson.A)
	if !ok {
		return nil, errf(mongoerr.SliceBadArgument, "First argument to $slice must be an array, but is of type: %s", typeName(a[0]))
	}
	first, ok := asInt32Arg(a[1])
	if !ok {
		return nil, errf(mongoerr.SliceSecondArgNotNumeric, "Second argument to $slice must be a numeric value, but is of type: %s", typeName(a[1]))
	}
	n := int64(len(arr))
	if len(a) == 2 {
		if first >= 0 {
			return arr[:min(first, n)], nil
		}
		return arr[max(n+first, 0):], nil
	}
	count, ok := asInt32Arg(a[2])
	if !ok {
		return nil, errf(mongoerr.SliceThirdArgNotNumeric, "Third argument to $slice must be numeric, but is of type: %s", typeName(a[2]))
	}
	if count <= 0 {
		return nil, errf(mongoerr.SliceCountNotPositive, "Third argument to $slice must be positive: %d", count)
	}
	start := first
	if start < 0 {
		start = max(n+start, 0)
	}
	start = min(start, n)
	return arr[start:min(start+count, n)], nil
}

func evalConcatArrays(name string, a []any) (any, error) {
	out := bson.A{}
	for _, v := range a {
		if IsNullish(v) {
			return nil, nil
		}
		arr, ok := v.(bson.A)
		if !ok {
			return nil, errf(mongoerr.ConcatArraysNotArray, "$concatArrays only supports arrays, not %s", typeName(v))
		}
		out = append(out, arr...)
	}
	return out, nil
}

func evalRange(name string, a []any) (any, error) {
	codes := [][2]mongoerr.Code{
		{mongoerr.RangeStartNotNumeric, mongoerr.RangeStartNotInt32},
		{mongoerr.RangeEndNotNumeric, mongoerr.RangeEndNotInt32},
		{mongoerr.RangeStepNotNumeric, mongoerr.RangeStepNotInt32},
	}
	what := []string{"starting value", "ending value", "step value"}
	vals := []int64{0, 0, 1}
	for i, v := range a {
		if !bsonx.IsNumber(v) {
			return nil, errf(codes[i][0], "$range requires a numeric %s, found value of type: %s", what[i], typeName(v))
		}
		n, ok := asInt32Arg(v)
		if !ok {
			return nil, errf(codes[i][1], "$range requires a %s that can be represented as a 32-bit integer, found value: %v", what[i], v)
		}
		vals[i] = n
	}
	start, end, step := vals[0], vals[1], vals[2]
	if step == 0 {
		return nil, errf(mongoerr.RangeStepZero, "$range requires a non-zero step value")
	}
	if n := (end - start) / step; n > maxRangeElems {
		return nil, errf(mongoerr.RangeTooLarge, "$range would use too much memory and cannot spill to disk. Memory limit: 67108864 bytes")
	}
	out := bson.A{}
	for i := start; (step > 0 && i < end) || (step < 0 && i > end); i += step {
		out = append(out, int32(i))
	}
	return out, nil
}

// maxRangeElems keeps $range under MongoDB's 64MB expression memory limit.
const maxRangeElems = 64 << 20 / 16

func evalIndexOfArray(name string, a []any) (any, error) {
	if IsNullish(a[0]) {
		return nil, nil
	}
	arr, ok := a[0].(bson.A)
	if !ok {
		return nil, errf(mongoerr.IndexOfArrayNotArray, "$indexOfArray requires an array as a first argument, found: %s", typeName(a[0]))
	}
	start, end, err := indexBounds(name, a[2:], int64(len(arr)))
	if err != nil {
		return nil, err
	}
	for i := start; i < end; i++ {
		if Compare(arr[i], a[1]) == 0 {
			return int32(i), nil
		}
	}
	return int32(-1), nil
}
