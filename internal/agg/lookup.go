package agg

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/iterx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/query"
)

type lookupStage struct {
	from         string
	localField   []string
	foreignField string
	as           []string
	sub          *Pipeline   // pipeline form, or nil
	letNames     []string    // the 'let' variables of the sub-pipeline
	letVals      []expr.Expr // their expressions, evaluated per local doc
}

func compileLookup(spec any, cc *compileCtx) ([]stage, error) {
	d, ok := spec.(bson.D)
	if !ok {
		return nil, mongoerr.New(mongoerr.FailedToParse, "the $lookup specification must be an Object, but found %s", typeOf(spec))
	}
	s := &lookupStage{}
	var local, as string
	var pipeline bson.A
	var let bson.D
	for _, e := range d {
		if e.Key == "pipeline" {
			arr, ok := e.Value.(bson.A)
			if !ok {
				return nil, mongoerr.New(mongoerr.FailedToParse, "$lookup argument 'pipeline' must be an array")
			}
			pipeline = arr
			continue
		}
		if e.Key == "let" {
			if let, ok = e.Value.(bson.D); !ok {
				return nil, mongoerr.New(mongoerr.FailedToParse, "$lookup argument 'let' must be an object, is type %s", typeOf(e.Value))
			}
			continue
		}
		str, ok := e.Value.(string)
		if !ok {
			return nil, mongoerr.New(mongoerr.FailedToParse, "$lookup argument '%s' must be a string, found %s", e.Key, typeOf(e.Value))
		}
		switch e.Key {
		case "from":
			s.from = str
		case "localField":
			local = str
		case "foreignField":
			s.foreignField = str
		case "as":
			as = str
		default:
			return nil, mongoerr.New(mongoerr.FailedToParse, "unknown argument to $lookup: %s", e.Key)
		}
	}
	if let != nil && pipeline == nil {
		return nil, mongoerr.New(mongoerr.FailedToParse, "$lookup with 'let' must also specify a 'pipeline'")
	}
	sub, err := s.compileLet(let, cc)
	if err != nil {
		return nil, err
	}
	return s.finish(local, as, pipeline, sub)
}

// compileLet compiles the let expressions (which see the outer variables
// and the local document) and returns the context for the sub-pipeline,
// where the let names are in scope too.
func (s *lookupStage) compileLet(let bson.D, cc *compileCtx) (*compileCtx, error) {
	for _, e := range let {
		if err := expr.ValidateVarName(e.Key); err != nil {
			return nil, err
		}
		v, err := cc.compileExpr(e.Value)
		if err != nil {
			return nil, err
		}
		s.letNames = append(s.letNames, e.Key)
		s.letVals = append(s.letVals, v)
	}
	return cc.withVars(s.letNames...), nil
}

// subCtx binds the let variables evaluated against the local document d.
func (s *lookupStage) subCtx(d bson.D, rc *runCtx) (*runCtx, error) {
	if len(s.letNames) == 0 {
		return rc, nil
	}
	outer := rc.varsFor(d)
	vars := rc.vars
	for i, e := range s.letVals {
		v, err := e.Eval(d, outer)
		if err != nil {
			return nil, err
		}
		vars = vars.Bind(s.letNames[i], v)
	}
	return &runCtx{env: rc.env, vars: vars, lim: rc.lim}, nil
}

func (s *lookupStage) finish(local, as string, pipeline bson.A, cc *compileCtx) ([]stage, error) {
	if as == "" {
		return nil, mongoerr.New(mongoerr.FailedToParse, "must specify 'as' field for a $lookup")
	}
	if s.from == "" {
		return nil, mongoerr.New(mongoerr.FailedToParse, "must specify 'from' field for a $lookup")
	}
	var err error
	if s.as, err = splitDotted(as); err != nil {
		return nil, err
	}
	if (local == "") != (s.foreignField == "") {
		return nil, mongoerr.New(mongoerr.FailedToParse, "$lookup requires both or neither of 'localField' and 'foreignField' to be specified")
	}
	if local == "" && pipeline == nil {
		return nil, mongoerr.New(mongoerr.FailedToParse, "$lookup requires either 'pipeline' or both 'localField' and 'foreignField' to be specified")
	}
	if local != "" {
		if s.localField, err = splitDotted(local); err != nil {
			return nil, err
		}
	}
	if pipeline != nil {
		if s.sub, err = compileStages(pipeline, cc); err != nil {
			return nil, err
		}
	}
	return []stage{s}, nil
}

func (s *lookupStage) run(in Iterator, rc *runCtx) Iterator {
	fc := &foreignCache{coll: s.from}
	return mapIter(in, func(d bson.D) (bson.D, error) {
		matches, err := s.matches(d, fc, rc)
		if err != nil {
			return nil, err
		}
		return withPath(d, s.as, matches), nil
	})
}

// foreignCache holds the foreign collection for $lookup while it fits in
// the lookup cache limit; past it, every local document re-reads the
// collection (bounded memory, more reads), as MongoDB abandons its cache.
// TODO(#2): use an index on foreignField instead of scanning.
type foreignCache struct {
	coll   string
	docs   []bson.D
	loaded bool
	tooBig bool
}

func (c *foreignCache) open(rc *runCtx) (Iterator, error) {
	switch {
	case c.loaded:
		return Slice(c.docs), nil
	case c.tooBig:
		return openColl(rc, c.coll)
	}
	it, err := openColl(rc, c.coll)
	if err != nil {
		return nil, err
	}
	defer it.Close()
	var docs []bson.D
	bytes := int64(0)
	for {
		d, ok := it.Next()
		if !ok {
			if err := it.Err(); err != nil {
				return nil, err
			}
			break
		}
		if bytes += docSize(d) + itemOverhead; bytes > rc.lim.lookupCacheBytes {
			c.tooBig = true
			return openColl(rc, c.coll)
		}
		docs = append(docs, d)
	}
	c.docs, c.loaded = docs, true
	return Slice(docs), nil
}

// openColl opens a collection of the pipeline's database.
func openColl(rc *runCtx, coll string) (Iterator, error) {
	if rc.env.Lookup == nil {
		return nil, mongoerr.New(mongoerr.NamespaceNotFound, "no collection resolver for %s.%s", rc.env.DB, coll)
	}
	return rc.env.Lookup(rc.env.DB, coll)
}

// matches builds the 'as' array for local document d; it may not pass
// the document size limit.
func (s *lookupStage) matches(d bson.D, fc *foreignCache, rc *runCtx) (bson.A, error) {
	candidates, err := fc.open(rc)
	if err != nil {
		return nil, err
	}
	if s.localField != nil {
		m, err := query.CompileOptions(bson.D{{Key: s.foreignField, Value: bson.D{{Key: "$in", Value: localValues(d, s.localField)}}}},
			query.Options{Collator: rc.env.bsonCollator()})
		if err != nil {
			candidates.Close()
			return nil, err
		}
		candidates = mapIter(candidates, func(f bson.D) (bson.D, error) {
			if m.Match(f) {
				return f, nil
			}
			return nil, nil
		})
	}
	if s.sub != nil {
		sub, err := s.subCtx(d, rc)
		if err != nil {
			candidates.Close()
			return nil, err
		}
		candidates = s.sub.runWith(candidates, sub, -1)
	}
	defer candidates.Close()
	out := bson.A{}
	size := docSize(d)
	for {
		c, ok, err := pull(candidates)
		if err != nil || !ok {
			return out, err
		}
		if size += docSize(c) + 8; size > maxUserDocBytes {
			return nil, mongoerr.New(mongoerr.LookupResultTooLarge, "Total size of documents in %s matching pipeline's $lookup stage exceeds %d bytes", s.from, maxUserDocBytes)
		}
		out = append(out, c)
	}
}

// localValues are the values a local document matches by: the elements of
// an array (none for an empty array), the value itself otherwise, null
// when missing.
func localValues(d bson.D, path []string) bson.A {
	e, _ := expr.Compile("$" + joinPath(path))
	v, _ := e.Eval(d, nil)
	switch t := v.(type) {
	case bson.A:
		return t
	case expr.MissingValue:
		return bson.A{nil}
	}
	return bson.A{v}
}

func joinPath(p []string) string {
	s := p[0]
	for _, x := range p[1:] {
		s += "." + x
	}
	return s
}

type unionWithStage struct {
	coll string
	sub  *Pipeline
}

func compileUnionWith(spec any, cc *compileCtx) ([]stage, error) {
	s := &unionWithStage{}
	switch t := spec.(type) {
	case string:
		s.coll = t
	case bson.D:
		for _, e := range t {
			switch e.Key {
			case "coll":
				s.coll, _ = e.Value.(string)
			case "pipeline":
				arr, ok := e.Value.(bson.A)
				if !ok {
					return nil, mongoerr.New(mongoerr.TypeMismatch, "$unionWith 'pipeline' must be an array")
				}
				p, err := compileStages(arr, cc)
				if err != nil {
					return nil, err
				}
				s.sub = p
			default:
				return nil, mongoerr.New(mongoerr.IDLUnknownField, "BSON field '$unionWith.%s' is an unknown field.", e.Key)
			}
		}
	default:
		return nil, mongoerr.New(mongoerr.FailedToParse, "the $unionWith stage specification must be an object or string, but found %s", typeOf(spec))
	}
	if s.coll == "" {
		return nil, mongoerr.New(mongoerr.IDLMissingField, "BSON field '$unionWith.coll' is missing but a required field")
	}
	return []stage{s}, nil
}

func (s *unionWithStage) run(in Iterator, rc *runCtx) Iterator {
	var second Iterator
	next := func() (bson.D, bool, error) {
		if second == nil {
			d, ok, err := pull(in)
			if err != nil || ok {
				return d, ok, err
			}
			it, err := openColl(rc, s.coll)
			if err != nil {
				return nil, false, err
			}
			second = it
			if s.sub != nil {
				second = s.sub.runWith(second, rc, -1)
			}
		}
		return pull(second)
	}
	return iterx.Func(next, func() error {
		err := in.Close()
		if second != nil {
			if serr := second.Close(); err == nil {
				err = serr
			}
		}
		return err
	})
}
