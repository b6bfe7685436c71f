package js

import (
	"encoding/base64"
	"encoding/hex"
	"math"
	"strconv"

	"github.com/dop251/goja"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// toBSON converts a JavaScript value back to BSON: numbers become doubles
// (as in mongod), tagged shell objects their BSON type, Date a datetime,
// RegExp a regex, functions Code, arrays bson.A and other objects bson.D
// in property order.
func (cv *conv) toBSON(v goja.Value, depth int) (any, error) {
	if depth > MaxDepth {
		return nil, tooDeep()
	}
	switch {
	case v == nil || goja.IsUndefined(v):
		return bson.Undefined{}, nil
	case goja.IsNull(v):
		return nil, nil
	}
	switch x := v.Export().(type) {
	case bool:
		return x, nil
	case string:
		return x, nil
	case int64:
		return float64(x), nil
	case float64:
		return x, nil
	}
	o, ok := v.(*goja.Object)
	if !ok {
		return v.String(), nil // symbols, big integers
	}
	if tag := o.Get("_bsontype"); tag != nil && !goja.IsUndefined(tag) {
		return cv.taggedToBSON(o, tag.String(), depth)
	}
	return cv.objectToBSON(o, depth)
}

func (cv *conv) objectToBSON(o *goja.Object, depth int) (any, error) {
	switch o.ClassName() {
	case "Date":
		ms := o.ToNumber().ToFloat()
		if math.IsNaN(ms) {
			return bson.DateTime(math.MinInt64), nil
		}
		return bson.DateTime(int64(ms)), nil
	case "RegExp":
		return bson.Regex{Pattern: o.Get("source").String(), Options: o.Get("flags").String()}, nil
	case "Array":
		return cv.arrayToBSON(o, depth)
	case "Function":
		return bson.JavaScript(o.String()), nil
	case "Number", "String", "Boolean":
		return cv.toBSON(cv.rt.ToValue(o.Export()), depth)
	}
	d := bson.D{}
	for _, k := range o.Keys() {
		ev, err := cv.toBSON(o.Get(k), depth+1)
		if err != nil {
			return nil, err
		}
		d = append(d, bson.E{Key: k, Value: ev})
	}
	return d, nil
}

func (cv *conv) arrayToBSON(o *goja.Object, depth int) (any, error) {
	n := o.Get("length").ToInteger()
	a := make(bson.A, 0, min(n, 1<<16))
	for i := int64(0); i < n; i++ {
		ev, err := cv.toBSON(o.Get(strconv.FormatInt(i, 10)), depth+1)
		if err != nil {
			return nil, err
		}
		a = append(a, ev)
	}
	return a, nil
}

// taggedToBSON reads a prelude object back; a malformed one (a user's
// object with a _bsontype field) is an error, not a guess.
func (cv *conv) taggedToBSON(o *goja.Object, tag string, depth int) (any, error) {
	str := func(k string) string { return o.Get(k).String() }
	switch tag {
	case "NumberLong":
		n, err := strconv.ParseInt(str("_v"), 10, 64)
		if err != nil {
			f := o.ToNumber().ToFloat()
			if math.IsNaN(f) || math.Abs(f) >= 1<<63 {
				return nil, badShellValue(tag, str("_v"))
			}
			n = int64(f)
		}
		return n, nil
	case "NumberDecimal":
		d, err := bson.ParseDecimal128(str("_v"))
		if err != nil {
			return nil, badShellValue(tag, str("_v"))
		}
		return d, nil
	case "ObjectId":
		return parseOID(str("str"))
	case "Timestamp":
		return bson.Timestamp{T: uint32(o.Get("t").ToInteger()), I: uint32(o.Get("i").ToInteger())}, nil
	case "BinData":
		b, err := base64.StdEncoding.DecodeString(str("_b64"))
		if err != nil {
			return nil, badShellValue(tag, str("_b64"))
		}
		return bson.Binary{Subtype: byte(o.Get("_sub").ToInteger()), Data: b}, nil
	case "MinKey":
		return bson.MinKey{}, nil
	case "MaxKey":
		return bson.MaxKey{}, nil
	case "BSONRegExp":
		return bson.Regex{Pattern: str("pattern"), Options: str("options")}, nil
	}
	return cv.codeLikeToBSON(o, tag, depth)
}

func (cv *conv) codeLikeToBSON(o *goja.Object, tag string, depth int) (any, error) {
	switch tag {
	case "DBPointer":
		id, err := cv.toBSON(o.Get("id"), depth+1)
		oid, ok := id.(bson.ObjectID)
		if err != nil || !ok {
			return nil, badShellValue(tag, "id")
		}
		return bson.DBPointer{DB: o.Get("ns").String(), Pointer: oid}, nil
	case "Code":
		scope := o.Get("scope")
		if scope == nil || goja.IsUndefined(scope) {
			return bson.JavaScript(o.Get("code").String()), nil
		}
		s, err := cv.toBSON(scope, depth+1)
		if err != nil {
			return nil, err
		}
		sd, _ := s.(bson.D)
		return bson.CodeWithScope{Code: bson.JavaScript(o.Get("code").String()), Scope: sd}, nil
	}
	return nil, badShellValue(tag, "")
}

func parseOID(s string) (any, error) {
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 12 {
		return nil, badShellValue("ObjectId", s)
	}
	var id bson.ObjectID
	copy(id[:], b)
	return id, nil
}
