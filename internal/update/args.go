package update

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// parseArg validates and parses the operator's argument f.Value.
func (o *op) parseArg(f bson.E, fs filters) error {
	switch o.kind {
	case opInc, opMul:
		return o.parseArith(f)
	case opRename:
		return o.parseRename(f)
	case opCurrentDate:
		return o.parseCurrentDate(f)
	case opPush:
		return o.parsePush(f)
	case opAddToSet:
		return o.parseAddToSet(f)
	case opPull:
		return o.parsePull(f)
	case opPullAll:
		if _, ok := f.Value.(bson.A); !ok {
			return mongoerr.New(mongoerr.BadValue,
				"$pullAll requires an array argument but was given a %s", typeName(f.Value))
		}
	case opPop:
		return o.parsePop(f)
	case opBit:
		return o.parseBit(f)
	}
	return nil
}

func (o *op) parseArith(f bson.E) error {
	if bsonx.IsNumber(f.Value) {
		return nil
	}
	verb := "increment"
	if o.kind == opMul {
		verb = "multiply"
	}
	return mongoerr.New(mongoerr.TypeMismatch, "Cannot %s with non-numeric argument: {%s}", verb, fmtElem(f.Key, f.Value))
}

func (o *op) parseRename(f bson.E) error {
	to, ok := f.Value.(string)
	if !ok {
		return mongoerr.New(mongoerr.BadValue, "The 'to' field for $rename must be a string: %s", fmtElem(f.Key, f.Value))
	}
	if to == "" {
		return mongoerr.New(mongoerr.BadValue, "The 'to' field for $rename cannot be empty")
	}
	if hasDynamic(o.path) {
		return mongoerr.New(mongoerr.BadValue, "The source field for $rename may not be dynamic: %s", f.Key)
	}
	dst, err := parsePath(to, nil)
	if err != nil {
		return err
	}
	if hasDynamic(dst) {
		return mongoerr.New(mongoerr.BadValue, "The destination field for $rename may not be dynamic: %s", to)
	}
	if f.Key == to {
		return mongoerr.New(mongoerr.BadValue, "The source and target field for $rename must differ: %s", fmtElem(f.Key, f.Value))
	}
	if isPrefix(o.path, dst) || isPrefix(dst, o.path) {
		return mongoerr.New(mongoerr.BadValue,
			"The source and target field for $rename must not be on the same path: %s", fmtElem(f.Key, f.Value))
	}
	o.to = dst
	return nil
}

// hasDynamic reports whether a path has a positional component.
func hasDynamic(p []string) bool {
	for _, c := range p {
		if c == "$" || isArrayUpdate(c) {
			return true
		}
	}
	return false
}

func (o *op) parseCurrentDate(f bson.E) error {
	switch v := f.Value.(type) {
	case bool:
		return nil
	case bson.D:
		if len(v) == 1 && v[0].Key == "$type" {
			switch v[0].Value {
			case "date":
				return nil
			case "timestamp":
				o.dateTS = true
				return nil
			}
			return mongoerr.New(mongoerr.BadValue,
				"The '$type' string field is required to be 'date' or 'timestamp': {$currentDate: {field : {$type: 'date'}}}")
		}
		for _, e := range v {
			if e.Key != "$type" {
				return mongoerr.New(mongoerr.BadValue, "Unrecognized $currentDate option: %s", e.Key)
			}
		}
	}
	return mongoerr.New(mongoerr.BadValue,
		"%s is not valid type for $currentDate. Please use a boolean ('true') or a $type expression ({$type: 'timestamp/date'}).",
		typeName(f.Value))
}

func (o *op) parsePop(f bson.E) error {
	n, ok := bsonx.AsFloat64(f.Value)
	if !ok || !bsonx.IsNumber(f.Value) {
		return mongoerr.New(mongoerr.FailedToParse, "Expected a number in: %s", fmtElem(f.Key, f.Value))
	}
	if n != 1 && n != -1 {
		return mongoerr.New(mongoerr.FailedToParse, "$pop expects 1 or -1, found: %s", fmtValue(f.Value))
	}
	o.popLast = n == 1
	return nil
}

func (o *op) parseAddToSet(f bson.E) error {
	d, ok := f.Value.(bson.D)
	if !ok || len(d) == 0 || d[0].Key != "$each" {
		o.push = &pushSpec{each: bson.A{f.Value}}
		return nil
	}
	each, ok := d[0].Value.(bson.A)
	if !ok {
		return mongoerr.New(mongoerr.TypeMismatch,
			"The argument to $each in $addToSet must be an array but it was of type %s", typeName(d[0].Value))
	}
	if len(d) > 1 {
		return mongoerr.New(mongoerr.BadValue, "Found unexpected fields after $each in $addToSet: %s", fmtValue(d))
	}
	o.push = &pushSpec{each: each}
	return nil
}

// pathAcceptingKeywords are the query operators that, as the first field of
// a $pull condition, make the condition apply to the element as a value.
var pathAcceptingKeywords = map[string]bool{
	"$eq": true, "$ne": true, "$gt": true, "$gte": true, "$lt": true, "$lte": true,
	"$in": true, "$nin": true, "$exists": true, "$type": true, "$regex": true,
	"$options": true, "$elemMatch": true, "$size": true, "$all": true, "$mod": true,
	"$not": true, "$bitsAllSet": true, "$bitsAllClear": true, "$bitsAnySet": true,
	"$bitsAnyClear": true, "$geoWithin": true, "$geoIntersects": true, "$near": true,
	"$nearSphere": true, "$within": true,
}

func (o *op) parsePull(f bson.E) error {
	c, err := compilePullCond(f.Value, o.coll)
	if err != nil {
		return err
	}
	o.pull = c
	return nil
}

func isPathAccepting(d bson.D) bool {
	return len(d) > 0 && pathAcceptingKeywords[d[0].Key]
}

// isIdentifier reports whether s is a valid array filter identifier.
func isIdentifier(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	return strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) < 0
}
