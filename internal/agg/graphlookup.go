package agg

import (
	"math"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/query"
)

// $graphLookup searches "from" breadth first: depth 0 are the documents
// whose connectToField matches a startWith value, depth d+1 those whose
// connectToField matches a connectFromField value of depth d, up to
// maxDepth. Each foreign document (by _id) appears once, at the depth it
// was first reached; restrictSearchWithMatch filters every depth.
//
// Memory: the visited documents and the frontier of one search count
// against internalDocumentSourceGraphLookupMaxMemoryBytes (292 past it
// without allowDiskUse; 40099 with it: TODO(#14) spill as MongoDB 7.0
// can). The foreign collection is cached as $lookup's is (or re-read per
// depth past the lookup cache limit). The output document stays under
// 16 MiB (4568).

type graphLookupStage struct {
	from, connectFrom, connectTo, depthField string
	as                                       []string
	startWith                                expr.Expr
	maxDepth                                 int64 // -1: unbounded
	restrict                                 bson.D
}

func compileGraphLookup(spec any, cc *compileCtx) ([]stage, error) {
	d, ok := spec.(bson.D)
	if !ok {
		return nil, mongoerr.New(mongoerr.FailedToParse, "the $graphLookup stage specification must be an object, but found %s", typeOf(spec))
	}
	s := &graphLookupStage{maxDepth: -1}
	var as string
	for _, e := range d {
		var err error
		switch e.Key {
		case "from", "connectFromField", "connectToField", "as", "depthField":
			err = s.setString(e.Key, e.Value, &as)
		case "startWith":
			s.startWith, err = cc.compileExpr(e.Value)
		case "maxDepth":
			s.maxDepth, err = parseMaxDepth(e.Value)
		case "restrictSearchWithMatch":
			s.restrict, err = parseRestrict(e.Value, cc)
		default:
			err = mongoerr.New(mongoerr.GraphLookupUnknownArg, "Unknown argument to $graphLookup: %s", e.Key)
		}
		if err != nil {
			return nil, err
		}
	}
	if s.from == "" || as == "" || s.startWith == nil || s.connectFrom == "" || s.connectTo == "" {
		return nil, mongoerr.New(mongoerr.GraphLookupMissingField, "$graphLookup requires 'from', 'as', 'startWith', 'connectFromField', and 'connectToField' to be specified.")
	}
	s.as = strings.Split(as, ".")
	return []stage{s}, nil
}

func (s *graphLookupStage) setString(key string, v any, as *string) error {
	str, ok := v.(string)
	if !ok {
		return mongoerr.New(mongoerr.GraphLookupNotString, "expected string as argument for %s, found: %s", key, show(v))
	}
	if key != "from" {
		if _, err := splitDotted(str); err != nil {
			return err
		}
	}
	switch key {
	case "from":
		s.from = str
	case "connectFromField":
		s.connectFrom = str
	case "connectToField":
		s.connectTo = str
	case "as":
		*as = str
	case "depthField":
		s.depthField = str
	}
	return nil
}

func parseMaxDepth(v any) (int64, error) {
	f, ok := numberAsFloat(v)
	if !ok {
		return 0, mongoerr.New(mongoerr.GraphLookupDepthNotNum, "maxDepth must be numeric, found type: %s", typeOf(v))
	}
	if f < 0 {
		return 0, mongoerr.New(mongoerr.GraphLookupNegativeDepth, "maxDepth requires a nonnegative argument, found: %s", show(v))
	}
	if f != math.Trunc(f) || f >= math.MaxInt64 || math.IsNaN(f) {
		return 0, mongoerr.New(mongoerr.GraphLookupDepthNotLong, "maxDepth could not be represented as a long long: %s", show(v))
	}
	return int64(f), nil
}

func parseRestrict(v any, cc *compileCtx) (bson.D, error) {
	d, ok := v.(bson.D)
	if !ok {
		return nil, mongoerr.New(mongoerr.GraphLookupBadMatch, "restrictSearchWithMatch must be an object, found %s", typeOf(v))
	}
	if _, err := query.CompileWithVars(d, cc.scopeVars()); err != nil {
		return nil, err
	}
	return d, nil
}

func (s *graphLookupStage) run(in Iterator, rc *runCtx) Iterator {
	fc := &foreignCache{coll: s.from}
	return mapIter(in, func(d bson.D) (bson.D, error) {
		found, err := s.search(d, fc, rc)
		if err != nil {
			return nil, err
		}
		return withPath(d, s.as, found), nil
	})
}

// startValues are startWith's values: an array's elements, else itself
// (missing: none).
func startValues(v any) bson.A {
	switch t := v.(type) {
	case bson.A:
		return t
	case expr.MissingValue:
		return nil
	}
	return bson.A{v}
}

// graphSearch is the state of one document's search.
type graphSearch struct {
	seen  map[string]bool // groupKey of the _ids found
	out   bson.A
	bytes int64
	size  int64 // the output document's estimated size
}

func (s *graphLookupStage) search(d bson.D, fc *foreignCache, rc *runCtx) (bson.A, error) {
	v, err := s.startWith.Eval(d, rc.varsFor(d))
	if err != nil {
		return nil, err
	}
	g := &graphSearch{seen: map[string]bool{}, out: bson.A{}, size: docSize(d)}
	frontier := startValues(v)
	for depth := int64(0); len(frontier) > 0 && (s.maxDepth < 0 || depth <= s.maxDepth); depth++ {
		if frontier, err = s.level(frontier, depth, g, fc, rc); err != nil {
			return nil, err
		}
	}
	return g.out, nil
}

// level finds the unseen documents connected to frontier, adds them to
// g.out at depth and returns the next frontier.
func (s *graphLookupStage) level(frontier bson.A, depth int64, g *graphSearch, fc *foreignCache, rc *runCtx) (bson.A, error) {
	// As MongoDB's, the search is a {connectToField: {$in: values}} query:
	// a regex value matches as a pattern.
	filter := bson.D{{Key: s.connectTo, Value: bson.D{{Key: "$in", Value: frontier}}}}
	if s.restrict != nil {
		filter = bson.D{{Key: "$and", Value: bson.A{filter, s.restrict}}}
	}
	m, err := query.CompileOptions(filter, query.Options{Vars: rc.vars, Collator: rc.env.bsonCollator()})
	if err != nil {
		return nil, err
	}
	// TODO(#14): use an index on connectToField instead of scanning.
	it, err := fc.open(rc)
	if err != nil {
		return nil, err
	}
	defer it.Close()
	next := bson.A{}
	fromPath := strings.Split(s.connectFrom, ".")
	for {
		f, ok, err := pull(it)
		if err != nil || !ok {
			return next, err
		}
		id, _ := bsonx.Get(f, "_id")
		k := groupKey(id)
		if g.seen[k] || !m.Match(f) {
			continue
		}
		g.seen[k] = true
		if err := s.emit(f, depth, g, rc); err != nil {
			return nil, err
		}
		next = append(next, startValues(getPath(f, fromPath))...)
	}
}

func (s *graphLookupStage) emit(f bson.D, depth int64, g *graphSearch, rc *runCtx) error {
	if s.depthField != "" {
		f = withPath(f, strings.Split(s.depthField, "."), depth)
	}
	n := docSize(f) + itemOverhead
	if g.bytes += 2 * n; g.bytes > rc.lim.graphLookupBytes {
		return graphLookupLimitErr(rc.lim)
	}
	if g.size += n; g.size > maxUserDocBytes {
		return mongoerr.New(mongoerr.LookupResultTooLarge, "Total size of documents in %s matching $graphLookup exceeds %d bytes", s.from, maxUserDocBytes)
	}
	g.out = append(g.out, f)
	return nil
}

func graphLookupLimitErr(l *limits) error {
	if !l.allowDiskUse {
		return mongoerr.New(errNoDiskUse, "PlanExecutor error during aggregation :: caused by :: $graphLookup reached maximum memory consumption of %d bytes, but did not opt in to external sorting. Pass allowDiskUse:true to opt in.", l.graphLookupBytes)
	}
	return mongoerr.New(mongoerr.GraphLookupMemory, "$graphLookup reached maximum memory consumption of %d bytes (it cannot spill to disk yet)", l.graphLookupBytes)
}
