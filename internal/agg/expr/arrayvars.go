package expr

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// iterArgs parses the {input, as, <body>} arguments of $map and $filter;
// the body is compiled with the "as" variable (default "this") in scope.
func iterArgs(name string, raw any, sc *scope, body string, extra ...string) (input Expr, as string, bodyE Expr, opt map[string]Expr, err error) {
	d, ok := raw.(bson.D)
	if !ok {
		return nil, "", nil, nil, errf(mongoerr.ArrayVarsSpecNotObject, "%s only supports an object as its argument", name)
	}
	as = "this"
	var bodyRaw any
	haveBody := false
	opt = map[string]Expr{}
	for _, el := range d {
		switch {
		case el.Key == "input":
			if input, err = compile(el.Value, sc); err != nil {
				return
			}
		case el.Key == "as":
			s, ok := el.Value.(string)
			if !ok {
				return nil, "", nil, nil, errf(mongoerr.VariableNameMissing, "%s: 'as' must be a string", name)
			}
			if err = ValidateVarName(s); err != nil {
				return
			}
			as = s
		case el.Key == body:
			bodyRaw, haveBody = el.Value, true
		case contains(extra, el.Key):
			if opt[el.Key], err = compile(el.Value, sc); err != nil {
				return
			}
		default:
			return nil, "", nil, nil, errf(mongoerr.ArrayVarsUnknownParameter, "Unrecognized parameter to %s: %s", name, el.Key)
		}
	}
	if input == nil {
		return nil, "", nil, nil, errf(mongoerr.ArrayVarsMissingInput, "Missing 'input' parameter to %s", name)
	}
	if !haveBody {
		return nil, "", nil, nil, errf(mongoerr.ArrayVarsMissingBody, "Missing '%s' parameter to %s", body, name)
	}
	bodyE, err = compile(bodyRaw, sc.with(as))
	return
}

func compileMap(name string, raw any, sc *scope) (Expr, error) {
	input, as, in, _, err := iterArgs(name, raw, sc, "in")
	if err != nil {
		return nil, err
	}
	return funcExpr(func(doc bson.D, vars *Vars) (any, error) {
		arr, null, err := arrayInput(input, doc, vars, "$map", mongoerr.MapInputNotArray)
		if null || err != nil {
			return nil, err
		}
		out := make(bson.A, len(arr))
		for i, el := range arr {
			r, err := in.Eval(doc, vars.Bind(as, el))
			if err != nil {
				return nil, err
			}
			if IsMissing(r) {
				r = nil
			}
			out[i] = r
		}
		return out, nil
	}), nil
}

func compileFilter(name string, raw any, sc *scope) (Expr, error) {
	input, as, cond, opt, err := iterArgs(name, raw, sc, "cond", "limit")
	if err != nil {
		return nil, err
	}
	return funcExpr(func(doc bson.D, vars *Vars) (any, error) {
		arr, null, err := arrayInput(input, doc, vars, "$filter", mongoerr.FilterInputNotArray)
		if null || err != nil {
			return nil, err
		}
		limit, err := filterLimit(opt["limit"], doc, vars, len(arr))
		if err != nil {
			return nil, err
		}
		out := bson.A{}
		for _, el := range arr {
			if len(out) >= limit {
				break
			}
			c, err := cond.Eval(doc, vars.Bind(as, el))
			if err != nil {
				return nil, err
			}
			if Truthy(c) {
				out = append(out, el)
			}
		}
		return out, nil
	}), nil
}

func filterLimit(e Expr, doc bson.D, vars *Vars, n int) (int, error) {
	v, err := evalOpt(e, doc, vars)
	if err != nil || IsNullish(v) {
		return n, err
	}
	l, ok := asInt32Arg(v)
	if !ok {
		return 0, errf(mongoerr.FilterLimitNotInt32, "$filter: limit must be represented as a 32-bit integral value: %v", v)
	}
	if l < 1 {
		return 0, errf(mongoerr.FilterLimitNotPositive, "$filter: limit must be greater than 0: %d", l)
	}
	return int(l), nil
}

func compileReduce(name string, raw any, sc *scope) (Expr, error) {
	d, ok := raw.(bson.D)
	if !ok {
		return nil, errf(mongoerr.ReduceSpecNotObject, "$reduce only supports an object as its argument, found: %s", typeName(raw))
	}
	var input, init, in Expr
	var err error
	for _, el := range d {
		switch el.Key {
		case "input":
			input, err = compile(el.Value, sc)
		case "initialValue":
			init, err = compile(el.Value, sc)
		case "in":
			in, err = compile(el.Value, sc.with("value", "this"))
		default:
			return nil, errf(mongoerr.ReduceUnknownArgument, "$reduce found an unknown argument: %s", el.Key)
		}
		if err != nil {
			return nil, err
		}
	}
	if input == nil || init == nil || in == nil {
		return nil, errf(mongoerr.ReduceMissingArgument, "$reduce requires 'input', 'initialValue' and 'in' to be specified")
	}
	return funcExpr(func(doc bson.D, vars *Vars) (any, error) {
		v, err := input.Eval(doc, vars)
		if err != nil || IsNullish(v) {
			return nil, err
		}
		arr, ok := v.(bson.A)
		if !ok {
			return nil, errf(mongoerr.ReduceInputNotArray, "$reduce requires that 'input' be an array, found: %s", typeName(v))
		}
		acc, err := init.Eval(doc, vars)
		for _, el := range arr {
			if err != nil {
				return nil, err
			}
			acc, err = in.Eval(doc, vars.Bind("value", acc).Bind("this", el))
		}
		return acc, err
	}), nil
}

// arrayInput evaluates an array operator's input: null or missing gives
// null=true (the operator returns null); anything but an array fails with
// code.
func arrayInput(input Expr, doc bson.D, vars *Vars, op string, code mongoerr.Code) (arr bson.A, null bool, err error) {
	v, err := input.Eval(doc, vars)
	if err != nil || IsNullish(v) {
		return nil, err == nil, err
	}
	arr, ok := v.(bson.A)
	if !ok {
		return nil, false, errf(code, "input to %s must be an array not %s", op, typeName(v))
	}
	return arr, false, nil
}
