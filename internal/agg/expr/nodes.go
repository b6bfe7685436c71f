package expr

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// constant is a literal value.
type constant struct{ v any }

func (c constant) Eval(bson.D, *Vars) (any, error) { return c.v, nil }

// Const returns an expression that always evaluates to v.
func Const(v any) Expr { return constant{v} }

// IsConst reports whether e is a constant and returns its value.
func IsConst(e Expr) (any, bool) {
	c, ok := e.(constant)
	return c.v, ok
}

// fieldPath is "$a.b.c", evaluated against $$CURRENT.
type fieldPath struct{ path []string }

func (f *fieldPath) Eval(doc bson.D, _ *Vars) (any, error) {
	return walkDoc(doc, f.path), nil
}

// FieldPathOf returns the dotted path of a plain "$a.b" expression.
func FieldPathOf(e Expr) ([]string, bool) {
	f, ok := e.(*fieldPath)
	if !ok {
		return nil, false
	}
	return f.path, true
}

// walkDoc follows path from doc as MongoDB's ExpressionFieldPath does:
// through an array, it collects the path's value in each element that is a
// document (missing results dropped; nested arrays' non-document elements
// skipped).
func walkDoc(doc bson.D, path []string) any {
	v := lookup(doc, path[0])
	if len(path) == 1 {
		return v
	}
	return walkValue(v, path[1:])
}

func walkValue(v any, path []string) any {
	switch t := v.(type) {
	case bson.D:
		return walkDoc(t, path)
	case bson.A:
		out := bson.A{}
		for _, el := range t {
			d, ok := el.(bson.D)
			if !ok {
				continue
			}
			if r := walkDoc(d, path); !IsMissing(r) {
				out = append(out, r)
			}
		}
		return out
	}
	return Missing
}

func lookup(doc bson.D, key string) any {
	for _, e := range doc {
		if e.Key == key {
			return e.Value
		}
	}
	return Missing
}

// variable is "$$name" or "$$name.path".
type variable struct {
	name   string
	system bool
	path   []string
}

func (v *variable) Eval(doc bson.D, vars *Vars) (any, error) {
	val, err := v.base(doc, vars)
	if err != nil || v.path == nil {
		return val, err
	}
	return walkValue(val, v.path), nil
}

func (v *variable) base(doc bson.D, vars *Vars) (any, error) {
	if !v.system {
		val, ok := vars.Lookup(v.name)
		if !ok {
			return nil, mongoerr.New(mongoerr.UndefinedVariable, "Use of undefined variable: %s", v.name)
		}
		return val, nil
	}
	switch v.name {
	case "ROOT":
		if vars != nil && vars.HasRoot {
			return vars.Root, nil
		}
		return doc, nil
	case "CURRENT":
		return doc, nil
	case "REMOVE":
		return Missing, nil
	case "NOW":
		return bson.NewDateTimeFromTime(vars.now()), nil
	case "CLUSTER_TIME":
		if vars == nil || vars.ClusterTime.IsZero() {
			return nil, mongoerr.New(mongoerr.ClusterTimeUnavailable, "Builtin variable '$$CLUSTER_TIME' is not available")
		}
		return vars.ClusterTime, nil
	}
	return nil, mongoerr.New(mongoerr.InternalError, "unknown system variable $$%s", v.name)
}

// docExpr is a document whose values are expressions; Missing values drop
// their field.
type docExpr struct {
	keys []string
	vals []Expr
}

func (e *docExpr) Eval(doc bson.D, vars *Vars) (any, error) {
	out := make(bson.D, 0, len(e.keys))
	for i, sub := range e.vals {
		v, err := sub.Eval(doc, vars)
		if err != nil {
			return nil, err
		}
		if !IsMissing(v) {
			out = append(out, bson.E{Key: e.keys[i], Value: v})
		}
	}
	return out, nil
}

// arrayExpr is an array of expressions; Missing elements become null.
type arrayExpr struct{ elems []Expr }

func (e *arrayExpr) Eval(doc bson.D, vars *Vars) (any, error) {
	vals, err := evalAll(e.elems, doc, vars)
	if err != nil {
		return nil, err
	}
	out := make(bson.A, len(vals))
	for i, v := range vals {
		if IsMissing(v) {
			v = nil
		}
		out[i] = v
	}
	return out, nil
}

func evalAll(es []Expr, doc bson.D, vars *Vars) ([]any, error) {
	out := make([]any, len(es))
	for i, e := range es {
		v, err := e.Eval(doc, vars)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// naryExpr evaluates all arguments, then applies fn.
type naryExpr struct {
	args []Expr
	fn   func(args []any) (any, error)
}

func (e *naryExpr) Eval(doc bson.D, vars *Vars) (any, error) {
	vals, err := evalAll(e.args, doc, vars)
	if err != nil {
		return nil, err
	}
	return e.fn(vals)
}

// funcExpr is an operator with its own evaluation (short-circuit, scoped
// variables, named arguments).
type funcExpr func(doc bson.D, vars *Vars) (any, error)

func (f funcExpr) Eval(doc bson.D, vars *Vars) (any, error) { return f(doc, vars) }
