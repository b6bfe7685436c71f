package expr

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Under a collation, the comparison operators ($eq, $ne, $gt, $gte, $lt,
// $lte, $cmp) and $in compare strings by the collator the expression was
// compiled with (CompileColl); other operators compare binary.
// TODO(#14): $indexOfArray, the set operators, $min/$max and the other
// accumulators under a collation.

// CompileColl is CompileWithVars with string comparisons ordered by c
// (nil: binary).
func CompileColl(v any, vars []string, c bsonx.Collator) (Expr, error) {
	if c == nil {
		return CompileWithVars(v, vars)
	}
	sc := &scope{info: &compileInfo{coll: c}} // sentinel: matches no variable
	return compile(v, sc.with(vars...))
}

// collator is the collator of the compilation s belongs to (nil: binary).
func (s *scope) collator() bsonx.Collator {
	if s == nil || s.info == nil {
		return nil
	}
	return s.info.coll
}

// CompareColl is Compare with strings ordered by c (nil: binary).
func CompareColl(a, b any, c bsonx.Collator) int {
	return bsonx.CompareColl(forCompare(a), forCompare(b), c)
}

// naryColl is nary for an operator whose result depends on the collator.
func naryColl(name string, min, max int, fn func(c bsonx.Collator, args []any) (any, error)) {
	operators[name] = func(n string, raw any, sc *scope) (Expr, error) {
		args := argList(raw)
		if err := checkArity(n, len(args), min, max); err != nil {
			return nil, err
		}
		es, err := compileArgs(args, sc)
		if err != nil {
			return nil, err
		}
		c := sc.collator()
		return &naryExpr{args: es, fn: func(v []any) (any, error) { return fn(c, v) }}, nil
	}
}

func registerCollated() {
	cmpOp := func(name string, test func(int) bool) {
		naryColl(name, 2, 2, func(c bsonx.Collator, a []any) (any, error) { return test(CompareColl(a[0], a[1], c)), nil })
	}
	cmpOp("$eq", func(c int) bool { return c == 0 })
	cmpOp("$ne", func(c int) bool { return c != 0 })
	cmpOp("$gt", func(c int) bool { return c > 0 })
	cmpOp("$gte", func(c int) bool { return c >= 0 })
	cmpOp("$lt", func(c int) bool { return c < 0 })
	cmpOp("$lte", func(c int) bool { return c <= 0 })
	naryColl("$cmp", 2, 2, func(c bsonx.Collator, a []any) (any, error) { return int32(CompareColl(a[0], a[1], c)), nil })
	naryColl("$in", 2, 2, evalIn)
}

func evalIn(c bsonx.Collator, a []any) (any, error) {
	arr, ok := a[1].(bson.A)
	if !ok {
		return nil, errf(mongoerr.InNotArray, "$in requires an array as a second argument, found: %s", typeName(a[1]))
	}
	for _, el := range arr {
		if CompareColl(a[0], el, c) == 0 {
			return true, nil
		}
	}
	return false, nil
}
