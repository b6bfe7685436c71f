package agg

import (
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/iterx"
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
	lim  *limits // memory limits, read when Run starts
}

// Pipeline is a compiled pipeline. It is immutable and may be Run many
// times, concurrently.
type Pipeline struct {
	env         Env
	vars        *expr.Vars // let variables, evaluated at Compile
	fixedNow    bool       // $$NOW came from Env; else it is read at Run
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
	env   *Env
	vars  []string // names of the let variables in scope
	first bool     // compiling a pipeline's first stage (where $match may hold $text)
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
		"$unionWith": compileUnionWith, "$documents": compileDocuments,
		"$listLocalSessions": compileListLocalSessions, "$collStats": compileCollStats,
		"$setWindowFields": compileSetWindowFields, "$bucketAuto": compileBucketAuto,
		"$redact": compileRedact, "$geoNear": compileGeoNear, "$graphLookup": compileGraphLookup,
		"$fill": compileFill, "$densify": compileDensify,
		"$currentOp": compileCurrentOp, "$indexStats": compileIndexStats, "$planCacheStats": compilePlanCacheStats,
	}
}

// Compile validates and compiles pipeline. The command's let variables
// (env.Let, on top of env.Vars) are evaluated here, once.
func Compile(pipeline bson.A, env Env) (*Pipeline, error) {
	base := env.Vars
	if !env.Now.IsZero() {
		base = base.WithNow(env.Now)
	}
	vars, err := expr.EvalLet(env.Let, base)
	if err != nil {
		return nil, err
	}
	p, err := compileStages(pipeline, &compileCtx{env: &env, vars: vars.Names()})
	if err != nil {
		return nil, err
	}
	p.env, p.vars = env, vars
	p.fixedNow = !env.Now.IsZero() || env.Vars != nil && !env.Vars.Now.IsZero()
	return p, nil
}

func compileStages(pipeline bson.A, cc *compileCtx) (*Pipeline, error) {
	p := &Pipeline{sortIndex: -1}
	for i, raw := range pipeline {
		name, spec, err := splitStage(raw)
		if err != nil {
			return nil, err
		}
		if err := checkOutputStage(name, i == len(pipeline)-1); err != nil {
			return nil, err
		}
		if err := checkFirstOnly(name, i); err != nil {
			return nil, err
		}
		sc, ok := stageCompilers[name]
		if !ok {
			return nil, mongoerr.New(mongoerr.UnknownPipelineStage, "Unrecognized pipeline stage name: '%s'", name)
		}
		cc.first = i == 0
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
		return "", nil, mongoerr.New(mongoerr.StageSpecNotSingleField, "A pipeline stage specification object must contain exactly one field.")
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
	return iterx.Checked(p.runWith(in, rc, skipSort), false)
}

func (p *Pipeline) newRunCtx() *runCtx {
	vars := p.vars
	if !p.fixedNow {
		vars = vars.WithNow(time.Now())
	}
	return &runCtx{env: &p.env, vars: vars, lim: currentLimits(&p.env)}
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
	return expr.CompileColl(v, cc.vars, cc.env.bsonCollator())
}

// scopeVars returns variables binding every name in scope (to null), for
// compiling filters whose variable values only come at run time.
func (cc *compileCtx) scopeVars() *expr.Vars {
	var v *expr.Vars
	for i := len(cc.vars) - 1; i >= 0; i-- {
		v = v.Bind(cc.vars[i], nil)
	}
	return v
}

// withVars returns a copy of cc with names added to the variables in scope.
func (cc *compileCtx) withVars(names ...string) *compileCtx {
	c := *cc
	c.vars = append(append([]string(nil), cc.vars...), names...)
	return &c
}
