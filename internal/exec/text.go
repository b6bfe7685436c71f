package exec

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/collation"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/query"
	"github.com/relaydb/relaydb/internal/storage/keystring"
	"github.com/relaydb/relaydb/internal/text"
)

// textSearch binds a filter's $text clause to its collection's text
// index. A document matches the clause when text.Query.Match accepts it;
// its score is text.Query.Score, what the index stores for its terms. A
// nil idx (no collection) matches nothing.
type textSearch struct {
	idx     *catalog.Index
	spec    *text.Spec
	q       *text.Query
	underOr bool
	prefix  bson.D // the prefix fields' equality values (textPlan)

	// The score of the document match last accepted (one find runs on one
	// goroutine), so the score stage need not tokenize it again.
	lastDoc   *bson.E
	lastID    any
	lastScore float64
}

// textFor returns filter's $text search over col (nil when the filter has
// no $text): IndexNotFound without a text index, as MongoDB's planner.
func textFor(col *catalog.Collection, filter bson.D) (*textSearch, error) {
	arg, underOr, n := query.TextClause(filter)
	switch {
	case n == 0:
		return nil, nil
	case n > 1:
		return nil, mongoerr.New(mongoerr.BadValue, "Too many text expressions")
	case textUnderNor(filter, false):
		return nil, mongoerr.New(mongoerr.BadValue, "text expression not allowed in nor")
	case hasNear(filter):
		return nil, mongoerr.New(mongoerr.BadValue, "text and geoNear not allowed in same query")
	case col == nil:
		return &textSearch{underOr: underOr}, nil
	}
	var idx *catalog.Index
	for _, x := range col.VisibleIndexes() {
		if x.IsText() {
			idx = x
		}
	}
	if idx == nil {
		return nil, mongoerr.New(mongoerr.IndexNotFound, "text index required for $text query")
	}
	spec, err := idx.TextSpec()
	if err != nil {
		return nil, err
	}
	q, err := text.ParseQuery(arg, spec.DefaultLanguage)
	if err != nil {
		return nil, err
	}
	return &textSearch{idx: idx, spec: spec, q: q, underOr: underOr}, nil
}

// match decides the $text clause for doc (query.TextFunc).
func (t *textSearch) match(doc bson.D) bool {
	if t == nil || t.idx == nil {
		return false
	}
	ok, score, err := t.q.Eval(t.spec, doc)
	if err != nil || !ok {
		return false
	}
	if len(doc) > 0 {
		t.lastDoc, t.lastID, t.lastScore = &doc[0], doc[0].Value, score
	}
	return true
}

func (t *textSearch) score(doc bson.D) float64 {
	if t == nil || t.idx == nil {
		return 0
	}
	if len(doc) > 0 && &doc[0] == t.lastDoc && bsonx.Compare(doc[0].Value, t.lastID) == 0 {
		t.lastDoc = nil
		return t.lastScore
	}
	s, _ := t.q.Score(t.spec, doc)
	return s
}

// compileFilter compiles a filter of db.coll, binding its $text clause.
func (e *Engine) compileFilter(db, coll string, filter bson.D, vars *expr.Vars) (*query.Matcher, *textSearch, error) {
	return e.compileFilterColl(db, coll, filter, vars, nil)
}

// compileFilterColl is compileFilter with strings compared by c (nil: simple).
func (e *Engine) compileFilterColl(db, coll string, filter bson.D, vars *expr.Vars, c *collation.Collator) (*query.Matcher, *textSearch, error) {
	ts, err := textFor(e.cat.Collection(db, coll), filter)
	if err != nil {
		return nil, nil, err
	}
	var fn query.TextFunc
	if ts != nil {
		fn = ts.match
	}
	m, err := query.CompileOptions(filter, query.Options{Vars: vars, Text: fn, Collator: bsonColl(c)})
	return m, ts, err
}

// textPlan is the access path of a $text query: one index scan per
// lookup term, below the equality values of the index's prefix fields
// (TEXT_OR over IXSCANs), or a collection scan when the $text is under an
// $or whose other clauses are indexed.
// TODO(#14): an OR of index scans for $text under $or, as MongoDB's.
func textPlan(col *catalog.Collection, ts *textSearch, filter bson.D) (*Plan, error) {
	if ts.underOr {
		if err := orClausesIndexed(col, filter); err != nil {
			return nil, err
		}
		return &Plan{Kind: "COLLSCAN", Text: ts}, nil
	}
	preds := predicates(filter)
	var prefix []byte
	for _, f := range ts.idx.TextPrefix() {
		p := preds[f.Key]
		if p == nil || len(p.eq) != 1 {
			return nil, mongoerr.New(mongoerr.NoQueryExecutionPlans,
				"error processing query: planner returned error :: caused by :: failed to use text index to satisfy $text query (if text index is compound, are equality predicates given for all prefix fields?)")
		}
		prefix = keystring.AppendValue(prefix, p.eq[0], isDesc(f.Value))
		ts.prefix = append(ts.prefix, bson.E{Key: f.Key, Value: p.eq[0]})
	}
	plan := &Plan{Kind: "TEXT", Index: ts.idx, Text: ts}
	for _, t := range ts.q.LookupTerms() {
		lo := keystring.AppendValue(concat(prefix, nil), t, false)
		plan.Intervals = append(plan.Intervals, interval{lo: lo, hi: prefixEnd(lo)})
	}
	return plan, nil
}

// orClausesIndexed checks the $or holding the $text: each other clause
// must be able to use an index (MongoDB cannot plan it otherwise).
func orClausesIndexed(col *catalog.Collection, filter bson.D) error {
	for _, e := range filter {
		clauses, _ := e.Value.(bson.A)
		if e.Key != "$or" || !hasText(clauses) {
			continue
		}
		for _, c := range clauses {
			d, _ := c.(bson.D)
			if _, _, n := query.TextClause(d); n > 0 || indexedClause(col, d) {
				continue
			}
			return mongoerr.New(mongoerr.NoQueryExecutionPlans,
				"error processing query: planner returned error :: caused by :: Failed to produce a solution for TEXT under OR - other non-TEXT clauses under OR have to be indexed as well.")
		}
	}
	return nil
}

func hasText(clauses bson.A) bool {
	for _, c := range clauses {
		d, _ := c.(bson.D)
		if _, _, n := query.TextClause(d); n > 0 {
			return true
		}
	}
	return false
}

func indexedClause(col *catalog.Collection, clause bson.D) bool {
	preds := predicates(clause)
	for _, idx := range col.VisibleIndexes() {
		if idx.IsText() || (idx.Partial != nil && !implies(preds, idx.Partial)) {
			continue
		}
		if indexPlan(idx, preds, nil, false) != nil {
			return true
		}
	}
	return false
}

// findPlan picks a find's access path: textPlan for $text, else
// choosePlan.
func findPlan(col *catalog.Collection, p FindParams, ts *textSearch) (*Plan, error) {
	if ts != nil && ts.idx != nil {
		if p.Snapshot != nil && !p.Snapshot.HasIndex(col, ts.idx) {
			// The snapshot predates the index: the matcher decides $text.
			return &Plan{Kind: "COLLSCAN", Text: ts}, nil
		}
		return textPlan(col, ts, p.Filter)
	}
	if ts == nil && p.Hint != nil {
		// A text index holds one entry per term: only $text can use it.
		if idx, err := hintedIndex(col, p.Hint); err == nil && idx.IsText() {
			return nil, mongoerr.New(mongoerr.BadValue, "error processing query: planner returned error :: caused by :: hint provided does not correspond to an existing index")
		}
	}
	return choosePlan(col, planInput{filter: p.Filter, sort: p.Sort, hint: p.Hint, coll: p.collator})
}

// textUnderNor reports a $text clause below a $nor.
func textUnderNor(filter bson.D, inNor bool) bool {
	for _, e := range filter {
		if e.Key == "$text" && inNor {
			return true
		}
		clauses, _ := e.Value.(bson.A)
		if e.Key != "$and" && e.Key != "$or" && e.Key != "$nor" {
			continue
		}
		for _, c := range clauses {
			d, _ := c.(bson.D)
			if textUnderNor(d, inNor || e.Key == "$nor") {
				return true
			}
		}
	}
	return false
}

// hasNear reports a $near or $nearSphere at the top level or under $and.
func hasNear(filter bson.D) bool {
	for _, e := range filter {
		if e.Key == "$and" {
			clauses, _ := e.Value.(bson.A)
			for _, c := range clauses {
				if d, _ := c.(bson.D); hasNear(d) {
					return true
				}
			}
			continue
		}
		ops, _ := e.Value.(bson.D)
		for _, op := range ops {
			if op.Key == "$near" || op.Key == "$nearSphere" {
				return true
			}
		}
	}
	return false
}
