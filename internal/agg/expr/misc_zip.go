package expr

// $zip {inputs, useLongestLength, defaults}. Invariants: the argument
// shape is checked at parse time (34460-34467, as mongod); a nullish input
// gives null and a non-array input fails with 34468; the output has the
// shortest input's length, or the longest's with useLongestLength, padded
// from defaults (null when absent). Output size is bounded by the inputs,
// which are already in memory.

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

type zipExpr struct {
	inputs, defaults []Expr
	longest          bool
}

func compileZip(name string, raw any, sc *scope) (Expr, error) {
	d, ok := raw.(bson.D)
	if !ok {
		return nil, errf(mongoerr.ZipNotObject, "$zip only supports an object as an argument, found %s", typeName(raw))
	}
	z := &zipExpr{}
	var defaults bson.A
	for _, el := range d {
		switch el.Key {
		case "inputs", "defaults":
			a, ok := el.Value.(bson.A)
			if !ok {
				code := mongoerr.ZipInputsNotArray
				if el.Key == "defaults" {
					code = mongoerr.ZipDefaultsNotArray
				}
				return nil, errf(code, "%s must be an array of expressions, found %s", el.Key, typeName(el.Value))
			}
			es, err := compileArgs(a, sc)
			if err != nil {
				return nil, err
			}
			if el.Key == "inputs" {
				z.inputs = es
			} else {
				z.defaults, defaults = es, a
			}
		case "useLongestLength":
			b, ok := el.Value.(bool)
			if !ok {
				return nil, errf(mongoerr.ZipUseLongestNotBool, "useLongestLength must be a bool, found %s", typeName(el.Value))
			}
			z.longest = b
		default:
			return nil, errf(mongoerr.ZipUnknownArgument, "$zip found an unknown argument: %s", el.Key)
		}
	}
	switch {
	case len(z.inputs) == 0:
		return nil, errf(mongoerr.ZipNoInputs, "$zip requires at least one input array")
	case !z.longest && len(defaults) > 0:
		return nil, errf(mongoerr.ZipDefaultsNeedLongest, "cannot specify defaults unless useLongestLength is true")
	case len(defaults) > 0 && len(defaults) != len(z.inputs):
		return nil, errf(mongoerr.ZipDefaultsLength, "defaults and inputs must be the same length")
	}
	return z, nil
}

func (z *zipExpr) Eval(doc bson.D, vars *Vars) (any, error) {
	arrays := make([]bson.A, len(z.inputs))
	n := -1
	for i, e := range z.inputs {
		v, err := e.Eval(doc, vars)
		if err != nil {
			return nil, err
		}
		if IsNullish(v) {
			return nil, nil
		}
		a, ok := v.(bson.A)
		if !ok {
			return nil, errf(mongoerr.ZipInputNotArray, "$zip found a non-array expression in input: %s", typeName(v))
		}
		arrays[i] = a
		if n < 0 || (z.longest && len(a) > n) || (!z.longest && len(a) < n) {
			n = len(a)
		}
	}
	pad := make([]any, len(z.inputs))
	for i, e := range z.defaults {
		v, err := e.Eval(doc, vars)
		if err != nil {
			return nil, err
		}
		pad[i] = nullIfMissing(v)
	}
	out := make(bson.A, n)
	for j := range out {
		row := make(bson.A, len(arrays))
		for i, a := range arrays {
			if j < len(a) {
				row[i] = a[j]
			} else {
				row[i] = pad[i]
			}
		}
		out[j] = row
	}
	return out, nil
}

func nullIfMissing(v any) any {
	if _, ok := v.(MissingValue); ok {
		return nil
	}
	return v
}
