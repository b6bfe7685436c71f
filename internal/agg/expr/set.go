package expr

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

func registerSet() {
	nary("$setUnion", 0, -1, func(n string, a []any) (any, error) {
		sets, null, err := arrays(n, a, mongoerr.SetUnionNotArray)
		if null || err != nil {
			return nil, err
		}
		out := bson.A{}
		for _, s := range sets {
			out = appendUnique(out, s...)
		}
		return out, nil
	})
	nary("$setIntersection", 0, -1, func(n string, a []any) (any, error) {
		sets, null, err := arrays(n, a, mongoerr.SetIntersectionNotArray)
		if null || err != nil {
			return nil, err
		}
		if len(sets) == 0 {
			return bson.A{}, nil
		}
		out := appendUnique(bson.A{}, sets[0]...)
		for _, s := range sets[1:] {
			out = keep(out, s, true)
		}
		return out, nil
	})
	nary("$setDifference", 2, 2, func(n string, a []any) (any, error) {
		sets, null, err := arrays(n, a, mongoerr.SetDifferenceNotArray)
		if null || err != nil {
			return nil, err
		}
		return keep(appendUnique(bson.A{}, sets[0]...), sets[1], false), nil
	})
	nary("$setEquals", 2, -1, func(n string, a []any) (any, error) {
		sets, _, err := arrays(n, a, mongoerr.SetEqualsNotArray)
		if err != nil || sets == nil {
			return nil, errf(mongoerr.SetEqualsNotArray, "All operands of $setEquals must be arrays.")
		}
		first := appendUnique(bson.A{}, sets[0]...)
		for _, s := range sets[1:] {
			u := appendUnique(bson.A{}, s...)
			if len(u) != len(first) || len(keep(first, u, true)) != len(first) {
				return false, nil
			}
		}
		return true, nil
	})
	nary("$setIsSubset", 2, 2, func(n string, a []any) (any, error) {
		sets, _, err := arrays(n, a, mongoerr.SetIsSubsetNotArray)
		if err != nil || sets == nil {
			return nil, errf(mongoerr.SetIsSubsetNotArray, "both operands of $setIsSubset must be arrays.")
		}
		return len(keep(appendUnique(bson.A{}, sets[0]...), sets[1], false)) == 0, nil
	})
	nary("$allElementsTrue", 1, 1, elementsTrue(true))
	nary("$anyElementTrue", 1, 1, elementsTrue(false))
	registerAccumulatorExprs()
	registerAccumN()
}

// arrays checks that every argument is an array; null reports a nullish one.
func arrays(name string, a []any, code mongoerr.Code) ([]bson.A, bool, error) {
	out := make([]bson.A, len(a))
	null := false
	for i, v := range a {
		if IsNullish(v) {
			null = true
			continue
		}
		arr, ok := v.(bson.A)
		if !ok {
			return nil, false, errf(code, "All operands of %s must be arrays. One argument is of type: %s", name, typeName(v))
		}
		out[i] = arr
	}
	if null {
		return nil, true, nil
	}
	return out, false, nil
}

func appendUnique(out bson.A, vals ...any) bson.A {
	for _, v := range vals {
		if !inArray(out, v) {
			out = append(out, v)
		}
	}
	return out
}

func inArray(arr bson.A, v any) bool {
	for _, x := range arr {
		if Compare(x, v) == 0 {
			return true
		}
	}
	return false
}

// keep returns the elements of set that are (in true) or are not (in
// false) in other.
func keep(set, other bson.A, in bool) bson.A {
	out := bson.A{}
	for _, v := range set {
		if inArray(other, v) == in {
			out = append(out, v)
		}
	}
	return out
}

func elementsTrue(all bool) func(string, []any) (any, error) {
	return func(name string, a []any) (any, error) {
		arr, ok := a[0].(bson.A)
		if !ok {
			return nil, errf(mongoerr.ElementsTrueNotArray, "%s's argument must be an array, but is %s", name, typeName(a[0]))
		}
		for _, v := range arr {
			if Truthy(v) != all {
				return !all, nil
			}
		}
		return all, nil
	}
}
