package update

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// pushSpec is a parsed $push (or $addToSet) argument.
type pushSpec struct {
	each     bson.A
	hasSlice bool
	slice    int64
	hasPos   bool
	pos      int64
	sort     *sortSpec
}

// sortSpec is $push's $sort: whole elements (fields == nil) or by fields.
type sortSpec struct {
	dir    int            // whole-element direction
	fields bson.D         // path -> 1/-1
	coll   bsonx.Collator // the op's collator (parsePush)
}

func (o *op) parsePush(f bson.E) error {
	d, ok := f.Value.(bson.D)
	if !ok || !hasKey(d, "$each") {
		o.push = &pushSpec{each: bson.A{f.Value}}
		return nil
	}
	p := &pushSpec{}
	for _, e := range d {
		if err := p.parseClause(e); err != nil {
			return err
		}
	}
	if p.sort != nil {
		p.sort.coll = o.coll
	}
	o.push = p
	return nil
}

func hasKey(d bson.D, k string) bool {
	_, ok := bsonx.Get(d, k)
	return ok
}

func (p *pushSpec) parseClause(e bson.E) error {
	var err error
	switch e.Key {
	case "$each":
		each, ok := e.Value.(bson.A)
		if !ok {
			return mongoerr.New(mongoerr.BadValue,
				"The argument to $each in $push must be an array but it was of type: %s", typeName(e.Value))
		}
		p.each = each
	case "$slice":
		p.hasSlice = true
		if p.slice, err = integral(e.Value); err != nil {
			return mongoerr.New(mongoerr.BadValue,
				"The value for $slice must be an integer value but was given type: %s", typeName(e.Value))
		}
	case "$position":
		p.hasPos = true
		if p.pos, err = integral(e.Value); err != nil {
			return mongoerr.New(mongoerr.BadValue,
				"The value for $position must be an integer value, not of type: %s", typeName(e.Value))
		}
	case "$sort":
		p.sort, err = parseSort(e.Value)
		return err
	default:
		return mongoerr.New(mongoerr.BadValue, "Unrecognized clause in $push: %s", e.Key)
	}
	return nil
}

// integral returns v as an int64 when it is a number with an integral value.
func integral(v any) (int64, error) {
	if !bsonx.IsNumber(v) {
		return 0, mongoerr.New(mongoerr.BadValue, "not a number")
	}
	n, ok := bsonx.AsInt64(v)
	if !ok {
		return 0, mongoerr.New(mongoerr.BadValue, "not an integer")
	}
	return n, nil
}

var errBadSort = mongoerr.New(mongoerr.BadValue,
	"The $sort is invalid: use 1/-1 to sort the whole element, or {field:1/-1} to sort embedded fields")

func parseSort(v any) (*sortSpec, error) {
	if d, ok := v.(bson.D); ok {
		return parseSortDoc(d)
	}
	n, err := integral(v)
	if err != nil || (n != 1 && n != -1) {
		return nil, errBadSort
	}
	return &sortSpec{dir: int(n)}, nil
}

func parseSortDoc(d bson.D) (*sortSpec, error) {
	if len(d) == 0 {
		return nil, mongoerr.New(mongoerr.BadValue, "The $sort pattern is empty when it should be a set of fields.")
	}
	fields := make(bson.D, 0, len(d))
	for _, e := range d {
		n, err := integral(e.Value)
		if err != nil || (n != 1 && n != -1) {
			return nil, mongoerr.New(mongoerr.BadValue, "The $sort element value must be either 1 or -1")
		}
		if _, err := parsePath(e.Key, nil); err != nil || hasDynamic(splitPath(e.Key)) {
			return nil, mongoerr.New(mongoerr.BadValue, "The $sort field is a special identifier, which must be a valid path")
		}
		fields = append(fields, bson.E{Key: e.Key, Value: int(n)})
	}
	return &sortSpec{fields: fields}, nil
}
