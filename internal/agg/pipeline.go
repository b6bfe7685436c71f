package agg

import (
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// stage is one compiled pipeline stage.
type stage interface {
	run(in Iterator, rc *runCtx) Iterator
}

// runCtx is per-Run state shared by the stages.
type runCtx struct {
	env  *Env
	vars *expr.Vars
}

// Pipeline is a compiled pipeline. It is immutable and may be Run many
// times, concurrently.
type Pipeline struct {
	env         Env
	stages      []stage
	names       []string
	firstMatch  bson.D
	leadingSort bson.D
	sortIndex   int // index in stages of the leading $sort, or -1
	leadingDone bool
}

type stageCompiler func(spec any, cc *compileCtx) ([]stage, error)

// compileCtx carries what stage compilers need.
type compileCtx struct {
	env  *Env
	vars []string // names of the let variables in scope
}

var stageCompilers map[string]stageCompiler

func init() {
	stageCompilers = map[string]stageCompiler{
		"$match": compileMatch, "$project": compileProject, "$addFields": compileAddFields,
		"$set": compileAddFields, "$unset": compileUnset, "$sort": compileSort,
		"$limit": compileLimit, "$skip": compileSkip, "$group": compileGroup,
		"$count": compileCount, "$unwind": compileUnwind, "$replaceRoot": compileReplaceRoot,
		"$replaceWith": compileReplaceWith, "$lookup": compileLookup, "$sample": compileSample,
		"$facet": compileFacet, "$sortByCount": compileSortByCount, "$bucket": compileBucket,
		"$unionWith": compileUnionWith, "$out": compileOutMerge, "$merge": compileOutMerge,
	}
}

// Compile validates and compiles pipeline.
func Compile(pipeline bson.A, env Env) (*Pipeline, error) {
	names := make([]string, 0, len(env.Let))
	for _, e := range env.Let {
		if err := expr.ValidateVarName(e.Key); err != nil {
			return nil, err
		}
		names = append(names, e.Key)
	}
	p, err := compileStages(pipeline, &compileCtx{env: &env, vars: names})
	if err != nil {
		return nil, err
	}
	p.env = env
	return p, nil
}

func compileStages(pipeline bson.A, cc *compileCtx) (*Pipeline, error) {
	p := &Pipeline{sortIndex: -1}
	for _, raw := range pipeline {
		name, spec, err := splitStage(raw)
		if err != nil {
			return nil, err
		}
		sc, ok := stageCompilers[name]
		if !ok {
			return nil, mongoerr.New(40324, "Unrecognized pipeline stage name: '%s'", name)
		}
		stages, err := sc(spec, cc)
		if err != nil {
			return nil, err
		}
		p.noteLeading(name, spec, len(p.stages))
		p.stages = append(p.stages, stages...)
		p.names = append(p.names, name)
	}
	p.coalesceSortLimit()
	return p, nil
}

func splitStage(raw any) (string, any, error) {
	d, ok := raw.(bson.D)
	if !ok {
		return "", nil, mongoerr.New(mongoerr.TypeMismatch, "Each element of the 'pipeline' array must be an object")
	}
	if len(d) != 1 {
		return "", nil, mongoerr.New(40323, "A pipeline stage specification object must contain exactly one field.")
	}
	return d[0].Key, d[0].Value, nil
}

// noteLeading records the leading $match filters and the $sort right after
// them, which an executor may push down to an index.
func (p *Pipeline) noteLeading(name string, spec any, idx int) {
	if p.leadingDone {
		return
	}
	switch name {
	case "$match":
		f := spec.(bson.D)
		if p.firstMatch == nil {
			p.firstMatch = f
		} else {
			p.firstMatch = bson.D{{Key: "$and", Value: bson.A{p.firstMatch, f}}}
		}
		return
	case "$sort":
		p.leadingSort, p.sortIndex = spec.(bson.D), idx
	}
	p.leadingDone = true
}

// FirstMatch returns the filter of the pipeline's leading $match stages
// (combined with $and), or nil. An executor may use it to choose an index;
// the pipeline still applies it.
func (p *Pipeline) FirstMatch() bson.D { return p.firstMatch }

// LeadingSort returns the $sort spec that directly follows the leading
// $match stages (or starts the pipeline), or nil. If the executor can feed
// documents already in that order it may call RunSorted, which skips the
// sort. Any other $sort needs the whole input, as do $group, $facet,
// $sample and $bucket.
func (p *Pipeline) LeadingSort() bson.D { return p.leadingSort }

// Stages returns the stage names in order.
func (p *Pipeline) Stages() []string { return p.names }

// Run feeds in through the pipeline. The returned iterator owns in.
func (p *Pipeline) Run(in Iterator) Iterator { return p.run(in, -1) }

// RunSorted is Run for input already ordered by LeadingSort: the leading
// $sort is skipped (a $limit coalesced into it still applies).
func (p *Pipeline) RunSorted(in Iterator) Iterator { return p.run(in, p.sortIndex) }

func (p *Pipeline) run(in Iterator, skipSort int) Iterator {
	rc := p.newRunCtx()
	return p.runWith(in, rc, skipSort)
}

func (p *Pipeline) newRunCtx() *runCtx {
	now := p.env.Now
	if now.IsZero() {
		now = time.Now()
	}
	vars := &expr.Vars{Now: now}
	for _, e := range p.env.Let {
		vars = vars.Bind(e.Key, e.Value)
	}
	return &runCtx{env: &p.env, vars: vars}
}

func (p *Pipeline) runWith(in Iterator, rc *runCtx, skipSort int) Iterator {
	it := in
	for i, s := range p.stages {
		if i == skipSort {
			s = s.(*sortStage).presorted()
		}
		it = s.run(it, rc)
	}
	return it
}

// varsFor returns the evaluation variables with $$ROOT bound to doc.
func (rc *runCtx) varsFor(doc bson.D) *expr.Vars { return rc.vars.WithRoot(doc) }

// compileExpr compiles an expression with the pipeline's let variables.
func (cc *compileCtx) compileExpr(v any) (expr.Expr, error) {
	return expr.CompileWithVars(v, cc.vars)
}
