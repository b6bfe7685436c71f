package expr

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

type compileFn func(name string, args any, sc *scope) (Expr, error)

// operators maps "$name" to its compiler. Filled in init to break the
// initialisation cycle through compile.
var operators map[string]compileFn

func init() {
	operators = map[string]compileFn{}
	registerArith()
	registerLogic()
	registerString()
	registerArray()
	registerType()
	registerDate()
	registerObject()
	registerSet()
	registerSetField()
	registerRand()
	registerMeta()
	registerFunction() // function.go
	registerTrig()     // trig.go
	registerBitwise()  // bitwise.go
	registerMisc()     // misc.go, misc_zip.go
}

// nary registers an operator taking between min and max (-1: unbounded)
// evaluated arguments.
func nary(name string, min, max int, fn func(name string, args []any) (any, error)) {
	operators[name] = func(n string, raw any, sc *scope) (Expr, error) {
		args := argList(raw)
		if err := checkArity(n, len(args), min, max); err != nil {
			return nil, err
		}
		es, err := compileArgs(args, sc)
		if err != nil {
			return nil, err
		}
		return &naryExpr{args: es, fn: func(v []any) (any, error) { return fn(n, v) }}, nil
	}
}

func checkArity(name string, n, min, max int) error {
	switch {
	case min == max && n != min:
		return mongoerr.New(mongoerr.ExpressionArgCount, "Expression %s takes exactly %d arguments. %d were passed in.", name, min, n)
	case n < min:
		return mongoerr.New(mongoerr.ExpressionArgCount, "Expression %s takes at least %d arguments, and %d were passed in.", name, min, n)
	case max >= 0 && n > max:
		return mongoerr.New(mongoerr.ExpressionTooManyArgs, "Expression %s takes at most %d arguments, and %d were passed in.", name, max, n)
	}
	return nil
}

// namedArgs parses an operator's {field: expr} argument document, checking
// for unknown and required fields.
func namedArgs(name string, raw any, sc *scope, allowed []string, required ...string) (map[string]Expr, error) {
	d, ok := raw.(bson.D)
	if !ok {
		return nil, mongoerr.New(mongoerr.FailedToParse, "%s expects an object of named arguments but found: %s", name, typeName(raw))
	}
	out := make(map[string]Expr, len(d))
	for _, el := range d {
		if !contains(allowed, el.Key) {
			return nil, mongoerr.New(mongoerr.FailedToParse, "%s found an unknown argument: %s", name, el.Key)
		}
		e, err := compile(el.Value, sc)
		if err != nil {
			return nil, err
		}
		out[el.Key] = e
	}
	for _, r := range required {
		if out[r] == nil {
			return nil, mongoerr.New(mongoerr.FailedToParse, "Missing '%s' parameter to %s", r, name)
		}
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// evalOpt evaluates an optional named argument; absent means Missing.
func evalOpt(e Expr, doc bson.D, vars *Vars) (any, error) {
	if e == nil {
		return Missing, nil
	}
	return e.Eval(doc, vars)
}
