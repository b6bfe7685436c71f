package expr

// Miscellaneous operators: $binarySize, $bsonSize, $tsSecond, $tsIncrement
// and $toHashedIndexKey ($zip is in misc_zip.go). Invariants: null,
// undefined or missing input gives null (except $toHashedIndexKey, which
// hashes missing as null, as mongod does); a wrong type fails with mongod's
// location code; sizes are ints, timestamp parts and hashes longs.

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx/bsonhash"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

func registerMisc() {
	nary("$binarySize", 1, 1, evalBinarySize)
	nary("$bsonSize", 1, 1, evalBSONSize)
	nary("$tsSecond", 1, 1, tsPart(mongoerr.TsSecondNotTimestamp, func(ts bson.Timestamp) uint32 { return ts.T }))
	nary("$tsIncrement", 1, 1, tsPart(mongoerr.TsIncrementNotTimestamp, func(ts bson.Timestamp) uint32 { return ts.I }))
	operators["$toHashedIndexKey"] = compileToHashedIndexKey
	operators["$zip"] = compileZip
}

func evalBinarySize(name string, args []any) (any, error) {
	switch t := args[0].(type) {
	case string:
		return int32(len(t)), nil
	case bson.Binary:
		return int32(len(t.Data)), nil
	}
	if IsNullish(args[0]) {
		return nil, nil
	}
	return nil, errf(mongoerr.BinarySizeBadType, "$binarySize requires a string or BinData argument, found: %s", typeName(args[0]))
}

func evalBSONSize(name string, args []any) (any, error) {
	if IsNullish(args[0]) {
		return nil, nil
	}
	d, ok := args[0].(bson.D)
	if !ok {
		return nil, errf(mongoerr.BSONSizeNotDocument, "$bsonSize requires a document input, found: %s", typeName(args[0]))
	}
	raw, err := bson.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("$bsonSize: encoding document: %w", err)
	}
	return int32(len(raw)), nil
}

func tsPart(code mongoerr.Code, part func(bson.Timestamp) uint32) func(string, []any) (any, error) {
	return func(name string, args []any) (any, error) {
		if IsNullish(args[0]) {
			return nil, nil
		}
		ts, ok := args[0].(bson.Timestamp)
		if !ok {
			return nil, errf(code, "%s requires a timestamp argument, found: %s", name, typeName(args[0]))
		}
		return int64(part(ts)), nil
	}
}

// compileToHashedIndexKey takes its operand as one expression: an array
// literal is hashed as an array, not read as an argument list.
func compileToHashedIndexKey(name string, raw any, sc *scope) (Expr, error) {
	e, err := compile(raw, sc)
	if err != nil {
		return nil, err
	}
	return &naryExpr{args: []Expr{e}, fn: func(v []any) (any, error) {
		in := v[0]
		if _, ok := in.(MissingValue); ok {
			in = nil
		}
		h, err := bsonhash.Hash(in)
		if err != nil {
			return nil, fmt.Errorf("$toHashedIndexKey: %w", err)
		}
		return h, nil
	}}, nil
}
