package agg

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

type projectStage struct {
	root *projNode
	kind projKind
}

func compileProject(spec any, cc *compileCtx) ([]stage, error) {
	d, ok := spec.(bson.D)
	if !ok {
		return nil, mongoerr.New(mongoerr.ProjectSpecNotObject, "$project specification must be an object")
	}
	if len(d) == 0 {
		return nil, mongoerr.New(mongoerr.ProjectSpecEmpty, "Invalid $project :: caused by :: projection specification must have at least one field")
	}
	root, kind, err := parseProjection(d, cc, false)
	if err != nil {
		return nil, err
	}
	return []stage{&projectStage{root: root, kind: kind}}, nil
}

func compileAddFields(spec any, cc *compileCtx) ([]stage, error) {
	d, ok := spec.(bson.D)
	if !ok {
		return nil, mongoerr.New(mongoerr.AddFieldsSpecNotObject, "$addFields specification stage must be an object, got %T", spec)
	}
	if len(d) == 0 {
		return nil, mongoerr.New(mongoerr.ProjectSpecEmpty, "Invalid $addFields :: caused by :: specification must have at least one field")
	}
	root, kind, err := parseProjection(d, cc, true)
	if err != nil {
		return nil, err
	}
	return []stage{&projectStage{root: root, kind: kind}}, nil
}

func compileUnset(spec any, cc *compileCtx) ([]stage, error) {
	var paths bson.A
	switch t := spec.(type) {
	case string:
		paths = bson.A{t}
	case bson.A:
		paths = t
	default:
		return nil, mongoerr.New(mongoerr.UnsetSpecBadType, "$unset specification must be a string or an array")
	}
	if len(paths) == 0 {
		return nil, mongoerr.New(mongoerr.UnsetSpecEmpty, "$unset specification must be a string or an array with at least one field")
	}
	spec2 := bson.D{}
	for _, p := range paths {
		s, ok := p.(string)
		if !ok {
			return nil, mongoerr.New(mongoerr.UnsetSpecBadType, "$unset specification must be a string or an array containing only string values")
		}
		spec2 = append(spec2, bson.E{Key: s, Value: int32(0)})
	}
	return compileProject(spec2, cc)
}

func (s *projectStage) run(in Iterator, rc *runCtx) Iterator {
	return mapIter(in, func(d bson.D) (bson.D, error) { return keepTextScore(d)(s.apply(d, rc)) })
}

func (s *projectStage) apply(doc bson.D, rc *runCtx) (bson.D, error) {
	switch s.kind {
	case projExclusion:
		return applyExclusion(s.root, doc), nil
	case projInclusion:
		return applyAdditions(s.root, applyInclusion(s.root, doc), doc, rc.varsFor(doc))
	}
	return applyAdditions(s.root, doc, doc, rc.varsFor(doc))
}

func applyExclusion(n *projNode, doc bson.D) bson.D {
	out := make(bson.D, 0, len(doc))
	for _, e := range doc {
		c := n.byName[e.Key]
		switch {
		case c == nil || c.mode == leafInclude:
			out = append(out, e)
		case c.mode == leafSub:
			out = append(out, bson.E{Key: e.Key, Value: excludeValue(c.sub, e.Value)})
		}
	}
	return out
}

func excludeValue(n *projNode, v any) any {
	switch t := v.(type) {
	case bson.D:
		return applyExclusion(n, t)
	case bson.A:
		out := make(bson.A, len(t))
		for i, el := range t {
			out[i] = excludeValue(n, el)
		}
		return out
	}
	return v
}

// applyInclusion keeps the included fields of doc in doc's order.
func applyInclusion(n *projNode, doc bson.D) bson.D {
	out := bson.D{}
	for _, e := range doc {
		c := n.byName[e.Key]
		if c == nil {
			continue
		}
		switch c.mode {
		case leafInclude:
			out = append(out, e)
		case leafSub:
			if v := includeValue(c.sub, e.Value); !expr.IsMissing(v) {
				out = append(out, bson.E{Key: e.Key, Value: v})
			}
		}
	}
	return out
}

func includeValue(n *projNode, v any) any {
	switch t := v.(type) {
	case bson.D:
		return applyInclusion(n, t)
	case bson.A:
		out := bson.A{}
		for _, el := range t {
			if r := includeValue(n, el); !expr.IsMissing(r) {
				out = append(out, r)
			}
		}
		return out
	}
	if n.hasComputed() {
		return bson.D{}
	}
	return expr.Missing
}

// applyAdditions sets n's computed fields (evaluated against root) into a
// copy of out, in spec order.
func applyAdditions(n *projNode, out bson.D, root bson.D, vars *expr.Vars) (bson.D, error) {
	if !n.hasComputed() {
		return out, nil
	}
	res := append(bson.D(nil), out...)
	for _, c := range n.children {
		var v any
		switch {
		case c.mode == leafComputed:
			r, err := c.e.Eval(root, vars)
			if err != nil {
				return nil, err
			}
			v = r
		case c.mode == leafSub && c.sub.hasComputed():
			r, err := additionsValue(c.sub, field(res, c.name), root, vars)
			if err != nil {
				return nil, err
			}
			v = r
		default:
			continue
		}
		res = withPath(res, []string{c.name}, v)
	}
	return res, nil
}

func additionsValue(n *projNode, v any, root bson.D, vars *expr.Vars) (any, error) {
	switch t := v.(type) {
	case bson.D:
		return applyAdditions(n, t, root, vars)
	case bson.A:
		out := make(bson.A, len(t))
		for i, el := range t {
			r, err := additionsValue(n, el, root, vars)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	}
	return applyAdditions(n, bson.D{}, root, vars)
}
