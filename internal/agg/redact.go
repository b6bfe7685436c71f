package agg

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// $redact evaluates its expression on the document and, for $$DESCEND,
// on each embedded document (alone or in arrays), with $$CURRENT the
// embedded document and $$ROOT the whole one. $$PRUNE drops the level,
// $$KEEP keeps it whole; a pruned top level drops the document. Depth is
// bounded by BSON's nesting limit.

var redactVars = []string{"DESCEND", "PRUNE", "KEEP"}

type redactStage struct{ e expr.Expr }

func compileRedact(spec any, cc *compileCtx) ([]stage, error) {
	e, err := cc.withVars(redactVars...).compileExpr(spec)
	if err != nil {
		return nil, err
	}
	return []stage{&redactStage{e: e}}, nil
}

func (s *redactStage) run(in Iterator, rc *runCtx) Iterator {
	return mapIter(in, func(d bson.D) (bson.D, error) {
		vars := rc.varsFor(d).Bind("DESCEND", "descend").Bind("PRUNE", "prune").Bind("KEEP", "keep")
		return s.redact(d, vars)
	})
}

// redact returns d redacted, or nil when pruned.
func (s *redactStage) redact(d bson.D, vars *expr.Vars) (bson.D, error) {
	v, err := s.e.Eval(d, vars)
	if err != nil {
		return nil, err
	}
	switch v {
	case "prune":
		return nil, nil
	case "keep":
		return d, nil
	case "descend":
	default:
		return nil, mongoerr.New(mongoerr.RedactBadResult, "$redact's expression should not return anything aside from the variables $$KEEP, $$DESCEND, and $$PRUNE, but returned %s", show(v))
	}
	out := make(bson.D, 0, len(d))
	for _, e := range d {
		v, keep, err := s.redactValue(e.Value, vars)
		if err != nil {
			return nil, err
		}
		if keep {
			out = append(out, bson.E{Key: e.Key, Value: v})
		}
	}
	return out, nil
}

func (s *redactStage) redactValue(v any, vars *expr.Vars) (any, bool, error) {
	switch t := v.(type) {
	case bson.D:
		r, err := s.redact(t, vars)
		return r, r != nil, err
	case bson.A:
		out := bson.A{}
		for _, x := range t {
			if sub, isDoc := x.(bson.D); isDoc {
				r, err := s.redact(sub, vars)
				if err != nil {
					return nil, false, err
				}
				if r != nil {
					out = append(out, r)
				}
				continue
			}
			if arr, isArr := x.(bson.A); isArr {
				r, _, err := s.redactValue(arr, vars)
				if err != nil {
					return nil, false, err
				}
				out = append(out, r)
				continue
			}
			out = append(out, x)
		}
		return out, true, nil
	}
	return v, true, nil
}
