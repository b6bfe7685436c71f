package expr

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

func registerLogic() {
	registerCollated() // $eq, $ne, $gt, $gte, $lt, $lte, $cmp, $in (collation.go)
	nary("$not", 1, 1, func(_ string, a []any) (any, error) { return !Truthy(a[0]), nil })
	operators["$and"] = compileAndOr(false)
	operators["$or"] = compileAndOr(true)
	operators["$cond"] = compileCond
	operators["$ifNull"] = compileIfNull
	operators["$switch"] = compileSwitch
	operators["$let"] = compileLet
	operators["$literal"] = func(_ string, args any, _ *scope) (Expr, error) { return constant{args}, nil }
}

// compileAndOr builds a short-circuiting $and (stopOn false) or $or (stopOn
// true).
func compileAndOr(stopOn bool) compileFn {
	return func(name string, raw any, sc *scope) (Expr, error) {
		es, err := compileArgs(argList(raw), sc)
		if err != nil {
			return nil, err
		}
		return funcExpr(func(doc bson.D, vars *Vars) (any, error) {
			for _, e := range es {
				v, err := e.Eval(doc, vars)
				if err != nil {
					return nil, err
				}
				if Truthy(v) == stopOn {
					return stopOn, nil
				}
			}
			return !stopOn, nil
		}), nil
	}
}

func compileCond(name string, raw any, sc *scope) (Expr, error) {
	var ifE, thenE, elseE Expr
	if d, ok := raw.(bson.D); ok {
		for _, el := range d {
			if !contains([]string{"if", "then", "else"}, el.Key) {
				return nil, errf(mongoerr.CondUnknownParameter, "Unrecognized parameter to $cond: %s", el.Key)
			}
		}
		m, err := namedArgs(name, d, sc, []string{"if", "then", "else"})
		if err != nil {
			return nil, err
		}
		condMissing := [...]mongoerr.Code{mongoerr.CondMissingIf, mongoerr.CondMissingThen, mongoerr.CondMissingElse}
		for i, k := range []string{"if", "then", "else"} {
			if m[k] == nil {
				return nil, errf(condMissing[i], "Missing '%s' parameter to $cond", k)
			}
		}
		ifE, thenE, elseE = m["if"], m["then"], m["else"]
	} else {
		args := argList(raw)
		if err := checkArity(name, len(args), 3, 3); err != nil {
			return nil, err
		}
		es, err := compileArgs(args, sc)
		if err != nil {
			return nil, err
		}
		ifE, thenE, elseE = es[0], es[1], es[2]
	}
	return funcExpr(func(doc bson.D, vars *Vars) (any, error) {
		c, err := ifE.Eval(doc, vars)
		if err != nil {
			return nil, err
		}
		if Truthy(c) {
			return thenE.Eval(doc, vars)
		}
		return elseE.Eval(doc, vars)
	}), nil
}

func compileIfNull(name string, raw any, sc *scope) (Expr, error) {
	args := argList(raw)
	if len(args) < 2 {
		return nil, errf(mongoerr.IfNullTooFewArgs, "$ifNull needs at least two arguments, had: %d", len(args))
	}
	es, err := compileArgs(args, sc)
	if err != nil {
		return nil, err
	}
	return funcExpr(func(doc bson.D, vars *Vars) (any, error) {
		for _, e := range es[:len(es)-1] {
			v, err := e.Eval(doc, vars)
			if err != nil || !IsNullish(v) {
				return v, err
			}
		}
		return es[len(es)-1].Eval(doc, vars)
	}), nil
}

type branch struct{ caseE, thenE Expr }

func compileSwitch(name string, raw any, sc *scope) (Expr, error) {
	d, ok := raw.(bson.D)
	if !ok {
		return nil, errf(mongoerr.SwitchSpecNotObject, "$switch requires an object as an argument, found: %s", typeName(raw))
	}
	var branches []branch
	var def Expr
	for _, el := range d {
		switch el.Key {
		case "branches":
			bs, err := compileBranches(el.Value, sc)
			if err != nil {
				return nil, err
			}
			branches = bs
		case "default":
			e, err := compile(el.Value, sc)
			if err != nil {
				return nil, err
			}
			def = e
		default:
			return nil, errf(mongoerr.SwitchUnknownArgument, "$switch found an unknown argument: %s", el.Key)
		}
	}
	if len(branches) == 0 {
		return nil, errf(mongoerr.SwitchNoBranches, "$switch requires at least one branch.")
	}
	return funcExpr(func(doc bson.D, vars *Vars) (any, error) {
		for _, b := range branches {
			c, err := b.caseE.Eval(doc, vars)
			if err != nil {
				return nil, err
			}
			if Truthy(c) {
				return b.thenE.Eval(doc, vars)
			}
		}
		if def == nil {
			return nil, errf(mongoerr.SwitchNoMatchingBranch, "$switch could not find a matching branch for an input, and no default was specified.")
		}
		return def.Eval(doc, vars)
	}), nil
}

func compileBranches(raw any, sc *scope) ([]branch, error) {
	arr, ok := raw.(bson.A)
	if !ok {
		return nil, errf(mongoerr.SwitchBranchesNotArray, "$switch expected an array for 'branches', found: %s", typeName(raw))
	}
	out := make([]branch, 0, len(arr))
	for _, b := range arr {
		d, ok := b.(bson.D)
		if !ok {
			return nil, errf(mongoerr.SwitchBranchNotObject, "$switch expected each branch to be an object, found: %s", typeName(b))
		}
		var br branch
		for _, el := range d {
			e, err := compile(el.Value, sc)
			if err != nil {
				return nil, err
			}
			switch el.Key {
			case "case":
				br.caseE = e
			case "then":
				br.thenE = e
			default:
				return nil, errf(mongoerr.SwitchBranchUnknownArgument, "$switch found an unknown argument to a branch: %s", el.Key)
			}
		}
		if br.caseE == nil {
			return nil, errf(mongoerr.SwitchBranchMissingCase, "$switch requires each branch have a 'case' expression")
		}
		if br.thenE == nil {
			return nil, errf(mongoerr.SwitchBranchMissingThen, "$switch requires each branch have a 'then' expression.")
		}
		out = append(out, br)
	}
	return out, nil
}
