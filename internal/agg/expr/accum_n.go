package expr

import (
	"math"
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// The array forms of the N accumulators ($firstN, $lastN, $maxN, $minN:
// {n, input}), $median/$percentile over an array or a number, and
// $sortArray. The $group forms live in package agg and share
// ParsePercentileSpec, PercentileResult and CheckN.

func registerAccumN() {
	for _, name := range []string{"$firstN", "$lastN", "$maxN", "$minN"} {
		operators[name] = compileArrayN
	}
	operators["$median"] = compilePercentileExpr
	operators["$percentile"] = compilePercentileExpr
	operators["$sortArray"] = compileSortArray
}

// CheckN validates an accumulator's n as MongoDB does: a number
// (5787902), integral (5787903), above 0 (5787908).
func CheckN(nv any) (int64, error) {
	n, isNum := toNumber(nv)
	if !isNum {
		return 0, errf(mongoerr.AccumNNotNumber, "Value for 'n' must be of integral type, but found %v", showValue(nv))
	}
	f := n.float()
	if f != math.Trunc(f) || math.IsInf(f, 0) {
		return 0, errf(mongoerr.AccumNNotIntegral, "Value for 'n' must be of integral type, but found %v", showValue(nv))
	}
	if f <= 0 {
		return 0, errf(mongoerr.AccumNNotPositive, "'n' must be greater than 0, found %d", int64(f))
	}
	return int64(f), nil
}

func showValue(v any) any {
	if v == nil || IsMissing(v) {
		return "null"
	}
	return v
}

func compileArrayN(name string, raw any, sc *scope) (Expr, error) {
	d, ok := raw.(bson.D)
	if !ok {
		return nil, errf(mongoerr.AccumNSpecNotObject, "specification must be an object; found %v", showValue(raw))
	}
	var n, input Expr
	for _, e := range d {
		c, err := compile(e.Value, sc)
		if err != nil {
			return nil, err
		}
		switch e.Key {
		case "n":
			n = c
		case "input":
			input = c
		default:
			return nil, errf(mongoerr.AccumNUnknownArg, "Unknown argument for 'n' operator: %s", e.Key)
		}
	}
	if n == nil {
		return nil, errf(mongoerr.AccumNMissingN, "Missing value for 'n'")
	}
	if input == nil {
		return nil, errf(mongoerr.AccumNMissingInput, "Missing value for 'input'")
	}
	return funcExpr(func(doc bson.D, vars *Vars) (any, error) {
		nv, err := n.Eval(doc, vars)
		if err != nil {
			return nil, err
		}
		k, err := CheckN(nv)
		if err != nil {
			return nil, err
		}
		in, err := input.Eval(doc, vars)
		if err != nil {
			return nil, err
		}
		arr, ok := in.(bson.A)
		if !ok {
			return nil, errf(mongoerr.AccumNInputNotArray, "Input must be an array")
		}
		return arrayN(name, arr, k), nil
	}), nil
}

func arrayN(name string, arr bson.A, n int64) bson.A {
	take := func(a bson.A) bson.A {
		if int64(len(a)) > n {
			a = a[:n]
		}
		return append(bson.A{}, a...)
	}
	switch name {
	case "$firstN":
		return take(arr)
	case "$lastN":
		if int64(len(arr)) > n {
			arr = arr[int64(len(arr))-n:]
		}
		return append(bson.A{}, arr...)
	}
	vals := bson.A{}
	for _, v := range arr {
		if !IsNullish(v) {
			vals = append(vals, v)
		}
	}
	sign := 1
	if name == "$maxN" {
		sign = -1
	}
	slices.SortStableFunc(vals, func(a, b any) int { return sign * Compare(a, b) })
	return take(vals)
}

// ParsePercentileSpec parses {input, p, method} ($percentile) or
// {input, method} ($median), compiling input with the user variables in
// vars. method must be "approximate".
func ParsePercentileSpec(name string, raw any, vars []string) (Expr, []float64, error) {
	return parsePercentile(name, raw, (*scope)(nil).with(vars...))
}

func parsePercentile(name string, raw any, sc *scope) (Expr, []float64, error) {
	d, ok := raw.(bson.D)
	if !ok {
		code := mongoerr.PercentileSpecNotObject
		if name == "$median" {
			code = mongoerr.MedianSpecNotObject
		}
		return nil, nil, errf(code, "specification must be an object; found %v", showValue(raw))
	}
	var input Expr
	var ps []float64
	hasP, hasMethod := name == "$median", false
	if name == "$median" {
		ps = []float64{0.5}
	}
	for _, e := range d {
		var err error
		switch {
		case e.Key == "input":
			input, err = compile(e.Value, sc)
		case e.Key == "p" && name == "$percentile":
			ps, err = percentileArg(e.Value)
			hasP = true
		case e.Key == "method":
			err = checkMethod(name, e.Value)
			hasMethod = true
		default:
			err = errf(mongoerr.IDLUnknownField, "BSON field '%s.%s' is an unknown field.", name, e.Key)
		}
		if err != nil {
			return nil, nil, err
		}
	}
	for _, f := range []struct {
		name string
		ok   bool
	}{{"input", input != nil}, {"p", hasP}, {"method", hasMethod}} {
		if !f.ok {
			return nil, nil, errf(mongoerr.IDLMissingField, "BSON field '%s.%s' is missing but a required field", name, f.name)
		}
	}
	return input, ps, nil
}

func percentileArg(v any) ([]float64, error) {
	const msg = "'p' must be an array of numeric values from [0.0, 1.0] range, but found "
	arr, ok := v.(bson.A)
	if !ok {
		return nil, errf(mongoerr.PercentileNotArray, msg+"%v", showValue(v))
	}
	if len(arr) == 0 {
		return nil, errf(mongoerr.BadValue, "'p' cannot be an empty array")
	}
	ps := make([]float64, 0, len(arr))
	for _, x := range arr {
		n, ok := toNumber(x)
		if !ok {
			return nil, errf(mongoerr.PercentileNotNumeric, msg+"%v", arr)
		}
		if p := n.float(); p < 0 || p > 1 || math.IsNaN(p) {
			return nil, errf(mongoerr.BadValue, "'p' must be an array of numeric values from [0.0, 1.0] range, but received incorrect value: %v", p)
		}
		ps = append(ps, n.float())
	}
	return ps, nil
}

func checkMethod(name string, v any) error {
	s, ok := v.(string)
	if !ok {
		return errf(mongoerr.TypeMismatch, "BSON field '%s.method' is the wrong type '%s', expected type 'string'", name, typeName(v))
	}
	if s != "approximate" {
		return errf(mongoerr.BadValue, "Enumeration value '%s' for field '%s.method' is not a valid value.", s, name)
	}
	return nil
}

// PercentileResult answers $percentile (an array of doubles) or $median
// (one double) over sorted, or null when there are no values: the value
// at rank ceil(p*n)-1 (MongoDB's discrete percentile).
func PercentileResult(sorted []float64, ps []float64, median bool) any {
	if len(sorted) == 0 {
		return nil
	}
	out := make(bson.A, len(ps))
	for i, p := range ps {
		r := int(math.Ceil(p*float64(len(sorted)))) - 1
		r = max(0, min(r, len(sorted)-1))
		out[i] = sorted[r]
	}
	if median {
		return out[0]
	}
	return out
}

func compilePercentileExpr(name string, raw any, sc *scope) (Expr, error) {
	input, ps, err := parsePercentile(name, raw, sc)
	if err != nil {
		return nil, err
	}
	return funcExpr(func(doc bson.D, vars *Vars) (any, error) {
		v, err := input.Eval(doc, vars)
		if err != nil {
			return nil, err
		}
		vals := floats(bson.A{v})
		if arr, ok := v.(bson.A); ok {
			vals = floats(arr)
		}
		slices.Sort(vals)
		return PercentileResult(vals, ps, name == "$median"), nil
	}), nil
}

// compileSortArray: {input, sortBy} where sortBy is 1/-1 (whole values)
// or a {field: ±1} document (non-document elements sort as if the field
// were missing).
// TODO(#14): a sortBy path through arrays takes the array itself, not the
// smallest/largest element as $sort does.
func compileSortArray(_ string, raw any, sc *scope) (Expr, error) {
	d, ok := raw.(bson.D)
	if !ok {
		return nil, errf(mongoerr.SortArraySpecNotObject, "$sortArray requires an object as an argument, found: %s", typeName(raw))
	}
	var input Expr
	var by any
	for _, e := range d {
		switch e.Key {
		case "input":
			c, err := compile(e.Value, sc)
			if err != nil {
				return nil, err
			}
			input = c
		case "sortBy":
			by = e.Value
		default:
			return nil, errf(mongoerr.SortArrayUnknownField, "$sortArray found an unknown argument: %s", e.Key)
		}
	}
	if input == nil {
		return nil, errf(mongoerr.SortArrayMissingInput, "$sortArray requires 'input' to be specified")
	}
	if by == nil {
		return nil, errf(mongoerr.SortArrayMissingSortBy, "$sortArray requires 'sortBy' to be specified")
	}
	cmp, err := sortArrayCompare(by)
	if err != nil {
		return nil, err
	}
	return funcExpr(func(doc bson.D, vars *Vars) (any, error) {
		v, err := input.Eval(doc, vars)
		if err != nil || IsNullish(v) {
			return nil, err
		}
		arr, ok := v.(bson.A)
		if !ok {
			return nil, errf(mongoerr.SortArrayInputNotArray, "The input argument to $sortArray must be an array, but was of type: %s", typeName(v))
		}
		out := append(bson.A{}, arr...)
		slices.SortStableFunc(out, cmp)
		return out, nil
	}), nil
}

func sortArrayCompare(by any) (func(a, b any) int, error) {
	if _, isNum := toNumber(by); isNum {
		dir, ok := sortDir(by)
		if !ok {
			return nil, errf(mongoerr.SortArrayBadElement, "The $sort element value must be either 1 or -1")
		}
		return func(a, b any) int { return dir * Compare(a, b) }, nil
	}
	bad := errf(mongoerr.SortArrayInvalid, "The $sort is invalid: use 1/-1 to sort the whole element, or {field:1/-1} to sort embedded fields")
	d, ok := by.(bson.D)
	if !ok || len(d) == 0 {
		return nil, bad
	}
	type key struct {
		path []string
		dir  int
	}
	var keys []key
	for _, e := range d {
		dir, ok := sortDir(e.Value)
		if !ok || e.Key == "" {
			return nil, bad
		}
		keys = append(keys, key{strings.Split(e.Key, "."), dir})
	}
	field := func(v any, path []string) any {
		doc, ok := v.(bson.D)
		if !ok {
			return nil
		}
		if r := walkDoc(doc, path); !IsMissing(r) {
			return r
		}
		return nil
	}
	return func(a, b any) int {
		for _, k := range keys {
			if c := k.dir * Compare(field(a, k.path), field(b, k.path)); c != 0 {
				return c
			}
		}
		return 0
	}, nil
}

func sortDir(v any) (int, bool) {
	n, ok := toNumber(v)
	if !ok {
		return 0, false
	}
	switch n.float() {
	case 1:
		return 1, true
	case -1:
		return -1, true
	}
	return 0, false
}
