package agg

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

type replaceRootStage struct{ e expr.Expr }

func compileReplaceRoot(spec any, cc *compileCtx) ([]stage, error) {
	d, ok := spec.(bson.D)
	if !ok {
		return nil, mongoerr.New(mongoerr.ReplaceRootSpecNotObject, "expected an object as specification for $replaceRoot stage, got %s", typeOf(spec))
	}
	var root any
	found := false
	for _, e := range d {
		if e.Key != "newRoot" {
			return nil, mongoerr.New(mongoerr.ReplaceRootUnknownOption, "unrecognized option to $replaceRoot stage: %s, only valid option is 'newRoot'.", e.Key)
		}
		root, found = e.Value, true
	}
	if !found {
		return nil, mongoerr.New(mongoerr.ReplaceRootMissingNewRoot, "no newRoot specified for the $replaceRoot stage")
	}
	return compileReplaceWith(root, cc)
}

func compileReplaceWith(spec any, cc *compileCtx) ([]stage, error) {
	e, err := cc.compileExpr(spec)
	if err != nil {
		return nil, err
	}
	return []stage{&replaceRootStage{e: e}}, nil
}

func (s *replaceRootStage) run(in Iterator, rc *runCtx) Iterator {
	return mapIter(in, func(d bson.D) (bson.D, error) {
		v, err := s.e.Eval(d, rc.varsFor(d))
		if err != nil {
			return nil, err
		}
		nd, ok := v.(bson.D)
		if !ok {
			return nil, mongoerr.New(mongoerr.ReplacementNotObject, "'replacement document' must evaluate to an object, but resulting value was: %v. Type of resulting value: '%s'. Input document: %v", v, typeOf(v), d)
		}
		return nd, nil
	})
}
