package js

import (
	"encoding/base64"
	"encoding/hex"
	"strconv"

	"github.com/dop251/goja"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// MaxDepth bounds the nesting of values converted either way (documents and
// arrays), as BSON's own nesting limit does.
const MaxDepth = 180

// ctors are the prelude's constructors, looked up once per runtime.
type ctors struct {
	date, regexp                                        goja.Value
	long, decimal, oid, ts, bin, minKey, maxKey, bsonRe goja.Value
	dbPointer, code                                     goja.Value
}

func loadCtors(rt *goja.Runtime) ctors {
	g := rt.GlobalObject()
	return ctors{
		date: g.Get("Date"), regexp: g.Get("RegExp"),
		long: g.Get("NumberLong"), decimal: g.Get("NumberDecimal"), oid: g.Get("ObjectId"),
		ts: g.Get("Timestamp"), bin: g.Get("BinData"), minKey: g.Get("MinKey"), maxKey: g.Get("MaxKey"),
		bsonRe: g.Get("BSONRegExp"), dbPointer: g.Get("DBPointer"), code: g.Get("Code"),
	}
}

// conv converts between BSON values and one runtime's values.
type conv struct {
	rt *goja.Runtime
	c  ctors
}

// newObj calls a prelude constructor; the prelude's constructors do not
// throw on the arguments conv passes.
func (cv *conv) newObj(ctor goja.Value, args ...any) goja.Value {
	vals := make([]goja.Value, len(args))
	for i, a := range args {
		if v, ok := a.(goja.Value); ok {
			vals[i] = v
		} else {
			vals[i] = cv.rt.ToValue(a)
		}
	}
	o, err := cv.rt.New(ctor, vals...)
	if err != nil {
		return goja.Undefined()
	}
	return o
}

// toJS converts a BSON value (as the driver decodes it into bson.D) to a
// JavaScript value.
func (cv *conv) toJS(v any, depth int) (goja.Value, error) {
	if depth > MaxDepth {
		return nil, tooDeep()
	}
	switch x := v.(type) {
	case nil:
		return goja.Null(), nil
	case bson.Undefined:
		return goja.Undefined(), nil
	case bool, string, float64, int32:
		return cv.rt.ToValue(x), nil
	case int64:
		return cv.newObj(cv.c.long, strconv.FormatInt(x, 10)), nil
	case bson.Decimal128:
		return cv.newObj(cv.c.decimal, x.String()), nil
	case bson.D:
		return cv.docToJS(x, depth)
	case bson.A:
		return cv.arrayToJS(x, depth)
	}
	return cv.scalarToJS(v, depth)
}

// scalarToJS converts the BSON types with a shell class.
func (cv *conv) scalarToJS(v any, depth int) (goja.Value, error) {
	switch x := v.(type) {
	case bson.DateTime:
		return cv.newObj(cv.c.date, float64(x)), nil
	case bson.ObjectID:
		return cv.newObj(cv.c.oid, hex.EncodeToString(x[:])), nil
	case bson.Timestamp:
		return cv.newObj(cv.c.ts, x.T, x.I), nil
	case bson.Binary:
		return cv.newObj(cv.c.bin, int(x.Subtype), base64.StdEncoding.EncodeToString(x.Data)), nil
	case bson.MinKey:
		return cv.newObj(cv.c.minKey), nil
	case bson.MaxKey:
		return cv.newObj(cv.c.maxKey), nil
	case bson.Regex:
		return cv.regexToJS(x), nil
	case bson.Symbol:
		return cv.rt.ToValue(string(x)), nil // as mongod: a symbol is a string in JavaScript
	case bson.JavaScript:
		return cv.newObj(cv.c.code, string(x)), nil
	case bson.CodeWithScope:
		scope, err := cv.toJS(x.Scope, depth+1)
		if err != nil {
			return nil, err
		}
		return cv.newObj(cv.c.code, string(x.Code), scope), nil
	case bson.DBPointer:
		return cv.newObj(cv.c.dbPointer, x.DB, cv.newObj(cv.c.oid, hex.EncodeToString(x.Pointer[:]))), nil
	}
	return nil, unsupported(v)
}

func (cv *conv) docToJS(d bson.D, depth int) (goja.Value, error) {
	o := cv.rt.NewObject()
	for _, e := range d {
		v, err := cv.toJS(e.Value, depth+1)
		if err != nil {
			return nil, err
		}
		// A data property, so a "__proto__" field is a field, not the prototype.
		if err := o.DefineDataProperty(e.Key, v, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE); err != nil {
			return nil, err
		}
	}
	return o, nil
}

func (cv *conv) arrayToJS(a bson.A, depth int) (goja.Value, error) {
	vals := make([]any, len(a))
	for i, e := range a {
		v, err := cv.toJS(e, depth+1)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	return cv.rt.NewArray(vals...), nil
}

// regexToJS makes a RegExp when JavaScript can express the pattern with
// the same options (a subset of i, m, s, in BSON's sorted order), and a
// BSONRegExp otherwise, so the value comes back unchanged.
func (cv *conv) regexToJS(r bson.Regex) goja.Value {
	if jsFlags(r.Options) {
		if o, err := cv.rt.New(cv.c.regexp, cv.rt.ToValue(r.Pattern), cv.rt.ToValue(r.Options)); err == nil {
			if src := o.Get("source"); src != nil && src.String() == r.Pattern {
				return o
			}
		}
	}
	return cv.newObj(cv.c.bsonRe, r.Pattern, r.Options)
}

func jsFlags(opts string) bool {
	prev := byte(0)
	for i := 0; i < len(opts); i++ {
		c := opts[i]
		if (c != 'i' && c != 'm' && c != 's') || c <= prev {
			return false
		}
		prev = c
	}
	return true
}
