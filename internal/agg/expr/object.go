package expr

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

func registerObject() {
	nary("$mergeObjects", 0, -1, func(_ string, a []any) (any, error) {
		out := bson.D{}
		for i, v := range a {
			var err error
			if out, err = MergeInto(out, v, i); err != nil {
				return nil, err
			}
		}
		return out, nil
	})
	nary("$objectToArray", 1, 1, evalObjectToArray)
	nary("$arrayToObject", 1, 1, evalArrayToObject)
	operators["$getField"] = compileGetField
}

// MergeInto merges document v into out as $mergeObjects does (null and
// Missing are ignored; later fields overwrite earlier ones in place). i is
// v's argument index, for the error message.
func MergeInto(out bson.D, v any, i int) (bson.D, error) {
	if IsNullish(v) {
		return out, nil
	}
	d, ok := v.(bson.D)
	if !ok {
		return nil, errf(mongoerr.MergeObjectsNotObject, "$mergeObjects requires object inputs, but input %d is of type %s", i, typeName(v))
	}
	for _, e := range d {
		out = setField(out, e.Key, e.Value)
	}
	return out, nil
}

// setField sets key in d (in place if present, else appended).
func setField(d bson.D, key string, v any) bson.D {
	for i := range d {
		if d[i].Key == key {
			d[i].Value = v
			return d
		}
	}
	return append(d, bson.E{Key: key, Value: v})
}

func evalObjectToArray(_ string, a []any) (any, error) {
	if IsNullish(a[0]) {
		return nil, nil
	}
	d, ok := a[0].(bson.D)
	if !ok {
		return nil, errf(mongoerr.ObjectToArrayNotObject, "$objectToArray requires a document input, found: %s", typeName(a[0]))
	}
	out := make(bson.A, len(d))
	for i, e := range d {
		out[i] = bson.D{{Key: "k", Value: e.Key}, {Key: "v", Value: e.Value}}
	}
	return out, nil
}

func evalArrayToObject(_ string, a []any) (any, error) {
	if IsNullish(a[0]) {
		return nil, nil
	}
	arr, ok := a[0].(bson.A)
	if !ok {
		return nil, errf(mongoerr.ArrayToObjectNotArray, "$arrayToObject requires an array input, found: %s", typeName(a[0]))
	}
	out := bson.D{}
	pairs := -1 // unknown until the first element
	for _, el := range arr {
		k, v, isPair, err := kvOf(el)
		if err != nil {
			return nil, err
		}
		if pairs == -1 {
			pairs = boolInt(isPair)
		} else if pairs != boolInt(isPair) {
			return nil, errf(mongoerr.ArrayToObjectMixedFormat, "$arrayToObject requires a consistent input format. Elements must all be arrays or all be objects.")
		}
		if IsNullish(k) {
			return nil, nil
		}
		ks, ok := k.(string)
		if !ok {
			return nil, errf(mongoerr.ArrayToObjectKeyNotString, "$arrayToObject requires a string key, found: %s", typeName(k))
		}
		if strings.Contains(ks, "\x00") {
			return nil, errf(mongoerr.ArrayToObjectKeyHasNull, "Key field cannot contain an embedded null byte")
		}
		out = setField(out, ks, v)
	}
	return out, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// kvOf reads one $arrayToObject element: [k, v] or {k: .., v: ..}.
func kvOf(el any) (k, v any, pair bool, err error) {
	switch t := el.(type) {
	case bson.A:
		if len(t) != 2 {
			return nil, nil, true, errf(mongoerr.ArrayToObjectPairBadSize, "$arrayToObject requires an array of size 2 arrays,found array of size: %d", len(t))
		}
		return t[0], t[1], true, nil
	case bson.D:
		if len(t) != 2 {
			return nil, nil, false, errf(mongoerr.ArrayToObjectBadKeyCount, "$arrayToObject requires an object keys of 'k' and 'v'. Found incorrect number of keys:%d", len(t))
		}
		kv, vv := lookup(t, "k"), lookup(t, "v")
		if IsMissing(kv) || IsMissing(vv) {
			return nil, nil, false, errf(mongoerr.ArrayToObjectMissingKV, "$arrayToObject requires an object with keys 'k' and 'v'. Missing either or both keys from: %v", t)
		}
		return kv, vv, false, nil
	}
	return nil, nil, false, errf(mongoerr.ArrayToObjectBadElement, "Unrecognised input type format for $arrayToObject: %s", typeName(el))
}

func compileGetField(name string, raw any, sc *scope) (Expr, error) {
	var field any
	input := Expr(&variable{name: "CURRENT", system: true})
	d, ok := raw.(bson.D)
	if ok && len(d) > 0 && !strings.HasPrefix(d[0].Key, "$") {
		m, err := namedArgs(name, d, sc, []string{"field", "input"}, "field", "input")
		if err != nil {
			return nil, err
		}
		fc, ok := m["field"].(constant)
		if !ok {
			return nil, errf(mongoerr.GetFieldFieldNotConstant, "$getField requires 'field' to evaluate to a constant, but got a non-constant argument")
		}
		field, input = fc.v, m["input"]
	} else {
		field = raw
	}
	key, ok := field.(string)
	if !ok {
		return nil, errf(mongoerr.GetFieldFieldNotString, "$getField requires 'field' to evaluate to type String, but got %s", typeName(field))
	}
	return funcExpr(func(doc bson.D, vars *Vars) (any, error) {
		v, err := input.Eval(doc, vars)
		if err != nil || IsNullish(v) {
			if IsMissing(v) {
				return Missing, err
			}
			return nil, err
		}
		d, ok := v.(bson.D)
		if !ok {
			return Missing, nil
		}
		return lookup(d, key), nil
	}), nil
}
