package agg

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/collation"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

type accSpec struct {
	field string
	arg   expr.Expr
	make  func() accumulator
}

type groupStage struct {
	id   expr.Expr
	accs []accSpec
	// keyOf, if set, replaces evaluating id ($bucket).
	keyOf func(doc bson.D, vars *expr.Vars) (any, error)
	// order, if set, orders the output groups ($bucket).
	order func(out []bson.D)
	// coll is the pipeline's collator, for $min/$max/$addToSet.
	coll *collation.Collator
}

func compileGroup(spec any, cc *compileCtx) ([]stage, error) {
	d, ok := spec.(bson.D)
	if !ok {
		return nil, mongoerr.New(mongoerr.StageSpecNotObject, "a group's fields must be specified in an object")
	}
	g := &groupStage{coll: cc.env.Collator}
	for _, e := range d {
		if e.Key == "_id" {
			id, err := cc.compileExpr(e.Value)
			if err != nil {
				return nil, err
			}
			g.id = id
			continue
		}
		a, err := compileAccumulator(e.Key, e.Value, cc)
		if err != nil {
			return nil, err
		}
		g.accs = append(g.accs, a)
	}
	if g.id == nil {
		return nil, mongoerr.New(mongoerr.GroupMissingID, "a group specification must include an _id")
	}
	return []stage{g}, nil
}

func compileAccumulator(name string, v any, cc *compileCtx) (accSpec, error) {
	if strings.HasPrefix(name, "$") {
		return accSpec{}, mongoerr.New(mongoerr.GroupFieldIsOperator, "The field name '%s' cannot be an operator name", name)
	}
	if strings.Contains(name, ".") {
		return accSpec{}, mongoerr.New(mongoerr.GroupFieldDotted, "The field name '%s' cannot contain '.'", name)
	}
	d, ok := v.(bson.D)
	if !ok {
		return accSpec{}, mongoerr.New(mongoerr.GroupFieldNotAccumulator, "The field '%s' must be an accumulator object", name)
	}
	if len(d) != 1 {
		return accSpec{}, mongoerr.New(mongoerr.GroupFieldMultipleAccumulators, "The field '%s' must specify one accumulator", name)
	}
	op, arg := d[0].Key, d[0].Value
	if op == "$count" {
		if a, ok := arg.(bson.D); !ok || len(a) != 0 {
			return accSpec{}, mongoerr.New(mongoerr.TypeMismatch, "$count takes no arguments, i.e. $count:{}")
		}
		op, arg = "$sum", int32(1)
	}
	if _, ok := nAccumulators[op]; ok {
		e, mk, err := compileNAccumulator(op, arg, cc)
		return accSpec{field: name, arg: e, make: mk}, err
	}
	if op == "$accumulator" { // accum_script.go
		e, mk, err := compileJSAccumulator(arg, cc)
		return accSpec{field: name, arg: e, make: mk}, err
	}
	if op == "$median" || op == "$percentile" {
		e, mk, err := compilePercentileAccumulator(op, arg, cc)
		return accSpec{field: name, arg: e, make: mk}, err
	}
	mk, ok := accumulators[op]
	if !ok {
		return accSpec{}, mongoerr.New(mongoerr.UnknownGroupOperator, "unknown group operator '%s'", op)
	}
	if _, isArr := arg.(bson.A); isArr {
		return accSpec{}, mongoerr.New(mongoerr.AccumulatorIsUnary, "The %s accumulator is a unary operator", op)
	}
	e, err := cc.compileExpr(arg)
	if err != nil {
		return accSpec{}, err
	}
	return accSpec{field: name, arg: e, make: mk}, nil
}

type group struct {
	key  string // groupKey(id)
	id   any
	accs []accumulator
}

func (g *groupStage) run(in Iterator, rc *runCtx) Iterator {
	t := newGroupTable(g, rc)
	return lazyIter(in, func() (Iterator, error) {
		if err := t.drain(in); err != nil {
			return nil, err
		}
		return t.output()
	}, t.spill.removeAll)
}

func (g *groupStage) newGroup(key string, id any) *group {
	grp := &group{key: key, id: id, accs: make([]accumulator, len(g.accs))}
	for i, a := range g.accs {
		grp.accs[i] = a.make()
		if c, ok := grp.accs[i].(collatedAcc); ok && g.coll != nil {
			c.setCollator(g.coll)
		}
	}
	return grp
}

func (g *groupStage) key(d bson.D, vars *expr.Vars) (any, error) {
	if g.keyOf != nil {
		return g.keyOf(d, vars)
	}
	return g.id.Eval(d, vars)
}

// accumulate folds d into grp and returns how many bytes grp grew by.
func (g *groupStage) accumulate(grp *group, d bson.D, vars *expr.Vars) (int64, error) {
	var grew int64
	for i, a := range g.accs {
		v, err := a.arg.Eval(d, vars)
		if err != nil {
			return 0, err
		}
		n, err := grp.accs[i].add(v)
		if err != nil {
			return 0, err
		}
		grew += n
	}
	return grew, nil
}

// output is a group's document; an accumulator that can fail
// ($accumulator's JavaScript) fails the stage.
func (g *groupStage) output(grp *group) (bson.D, error) {
	out := make(bson.D, 0, len(g.accs)+1)
	out = append(out, bson.E{Key: "_id", Value: grp.id})
	for i, a := range g.accs {
		out = append(out, bson.E{Key: a.field, Value: grp.accs[i].result()})
		if f, ok := grp.accs[i].(interface{ failure() error }); ok && f.failure() != nil {
			return nil, f.failure()
		}
	}
	return out, nil
}

func compileCount(spec any, cc *compileCtx) ([]stage, error) {
	name, ok := spec.(string)
	switch {
	case !ok || name == "":
		return nil, mongoerr.New(mongoerr.CountFieldEmpty, "the count field must be a non-empty string")
	case strings.HasPrefix(name, "$"):
		return nil, mongoerr.New(mongoerr.CountFieldDollarPrefixed, "the count field cannot be a $-prefixed path")
	case strings.Contains(name, "."):
		return nil, mongoerr.New(mongoerr.CountFieldDotted, "the count field cannot contain '.'")
	}
	return compileSub(bson.A{
		bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: nil}, {Key: name, Value: bson.D{{Key: "$sum", Value: int32(1)}}}}}},
		bson.D{{Key: "$project", Value: bson.D{{Key: "_id", Value: int32(0)}}}},
	}, cc)
}

func compileSortByCount(spec any, cc *compileCtx) ([]stage, error) {
	s, isStr := spec.(string)
	d, isDoc := spec.(bson.D)
	if !(isStr && strings.HasPrefix(s, "$")) && !(isDoc && len(d) == 1 && strings.HasPrefix(d[0].Key, "$")) {
		return nil, mongoerr.New(mongoerr.SortByCountBadSpec, "the sortByCount field must be defined as a $-prefixed path or an expression")
	}
	return compileSub(bson.A{
		bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: spec}, {Key: "count", Value: bson.D{{Key: "$sum", Value: int32(1)}}}}}},
		bson.D{{Key: "$sort", Value: bson.D{{Key: "count", Value: int32(-1)}}}},
	}, cc)
}

// compileSub compiles stages a stage desugars into.
func compileSub(pipeline bson.A, cc *compileCtx) ([]stage, error) {
	p, err := compileStages(pipeline, cc)
	if err != nil {
		return nil, err
	}
	return p.stages, nil
}
