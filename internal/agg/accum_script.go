package agg

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// $accumulator (MongoDB 4.4+): a group accumulator written in JavaScript.
// Per group, init(...initArgs) makes the state from the group's first
// document; accumulate(state, ...accumulateArgs) folds each document in;
// merge(state1, state2) joins partial states (spilled runs); finalize
// (optional) turns the state into the result. The state travels as BSON
// between calls, as in mongod. Differences: initArgs is evaluated for
// every document (only the first document's value is used), and a fresh
// accumulator merging spilled partials starts from the first partial
// instead of calling init. TODO(#14): batch accumulate calls as mongod
// does (one call into JavaScript per batch of documents).

// jsAccSpec is a compiled $accumulator, shared by its groups.
type jsAccSpec struct {
	init, accumulate, merge, finalize string // finalize may be ""
	initArgs, accArgs                 expr.Expr
	script                            lazyScript
}

// jsAccInput is what the accumulator's argument expression yields for one
// document.
type jsAccInput struct {
	script         expr.Script
	initArgs, args bson.A
}

func compileJSAccumulator(arg any, cc *compileCtx) (expr.Expr, func() accumulator, error) {
	d, ok := arg.(bson.D)
	if !ok {
		return nil, nil, mongoerr.New(mongoerr.JSAccNotObject, "$accumulator expects an object as an argument; found: %s", bsonx.TypeAlias(arg))
	}
	s := &jsAccSpec{initArgs: expr.Const(bson.A{})}
	for _, e := range d {
		if err := s.parseField(e, cc); err != nil {
			return nil, nil, err
		}
	}
	switch {
	case s.init == "":
		return nil, nil, mongoerr.New(mongoerr.JSAccNoInit, "$accumulator missing required argument 'init'")
	case s.accumulate == "":
		return nil, nil, mongoerr.New(mongoerr.JSAccNoAccumulate, "$accumulator missing required argument 'accumulate'")
	case s.merge == "":
		return nil, nil, mongoerr.New(mongoerr.JSAccNoMerge, "$accumulator missing required argument 'merge'")
	case s.accArgs == nil:
		return nil, nil, mongoerr.New(mongoerr.JSAccNoAccumulateArgs, "$accumulator missing required argument 'accumulateArgs'")
	}
	return s, func() accumulator { return &jsAcc{spec: s} }, nil
}

func (s *jsAccSpec) parseField(e bson.E, cc *compileCtx) error {
	var err error
	switch e.Key {
	case "init":
		s.init, err = jsAccFunction(e.Key, e.Value)
	case "accumulate":
		s.accumulate, err = jsAccFunction(e.Key, e.Value)
	case "merge":
		s.merge, err = jsAccFunction(e.Key, e.Value)
	case "finalize":
		s.finalize, err = jsAccFunction(e.Key, e.Value)
	case "initArgs":
		s.initArgs, err = cc.compileExpr(e.Value)
	case "accumulateArgs":
		s.accArgs, err = cc.compileExpr(e.Value)
	case "lang":
		l, isStr := e.Value.(string)
		if !isStr {
			return mongoerr.New(mongoerr.JSAccLangType, "$accumulator lang must be a string; found: %s", bsonx.TypeAlias(e.Value))
		}
		if l != "js" {
			return mongoerr.New(mongoerr.JSAccBadLang, "$accumulator only supports lang: 'js'")
		}
	default:
		return mongoerr.New(mongoerr.JSAccUnknownField, "$accumulator got an unexpected field: %s", e.Key)
	}
	return err
}

// jsAccFunction checks one of the functions: a constant string or Code.
func jsAccFunction(field string, v any) (string, error) {
	switch x := v.(type) {
	case string:
		if len(x) == 0 || x[0] != '$' {
			return x, nil
		}
	case bson.JavaScript:
		return string(x), nil
	default:
		if _, isDoc := v.(bson.D); !isDoc {
			return "", mongoerr.New(mongoerr.JSAccFuncType, "$accumulator '%s' must be a String or Code", field)
		}
	}
	return "", mongoerr.New(mongoerr.JSAccFuncNotConst, "$accumulator '%s' must be a constant expression", field)
}

// Eval makes the accumulator's input for one document.
func (s *jsAccSpec) Eval(doc bson.D, vars *expr.Vars) (any, error) {
	ia, err := s.initArgs.Eval(doc, vars)
	if err != nil {
		return nil, err
	}
	init, ok := ia.(bson.A)
	if !ok {
		return nil, mongoerr.New(mongoerr.JSAccInitArgsNotArray, "$accumulator initArgs must evaluate to an array: %v", ia)
	}
	aa, err := s.accArgs.Eval(doc, vars)
	if err != nil {
		return nil, err
	}
	args, ok := aa.(bson.A)
	if !ok {
		return nil, mongoerr.New(mongoerr.JSAccAccumArgsNotArray, "$accumulator accumulateArgs must evaluate to an array: %v", aa)
	}
	return jsAccInput{script: s.script.get(vars), initArgs: init, args: args}, nil
}
