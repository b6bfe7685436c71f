package exec

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/collation"
	"github.com/relaydb/relaydb/internal/iterx"
	"github.com/relaydb/relaydb/internal/query"
)

// FindParams are a find's query options.
type FindParams struct {
	Filter       bson.D
	Projection   bson.D
	Sort         bson.D
	Hint         any // index name or key pattern
	Skip, Limit  int64
	AllowDiskUse bool
	// Min and Max bound the scan of the hinted index (nil: unbounded);
	// ReturnKey returns index keys instead of documents (minmax.go).
	Min, Max  bson.D
	ReturnKey bool
	// Vars are the command's let variables (expr.EvalLet), for $expr.
	Vars *expr.Vars
	// Snapshot, when set, is the point-in-time view to read (readConcern
	// majority); nil reads the latest state. The caller holds a reference
	// for the call; the returned iterator takes its own.
	Snapshot *catalog.Snapshot
	// Owned, when set, keeps only the documents this shard owns
	// (ownfilter.go).
	Owned OwnershipFilter
	// Collation orders strings in the filter and sort (collation.go).
	Collation Collation

	// examined, when set, counts the documents the plan's scan fetches
	// (explain's executionStats).
	examined *int64
	// collator is Collation resolved against the collection (Find sets it).
	collator *collation.Collator
	// textScore keeps a $text query's scores in the documents
	// (textmeta.go's scoreKey), for a pipeline's {$meta: "textScore"}.
	textScore bool
}

// compiled holds a find's parsed parts.
type compiled struct {
	m    *query.Matcher
	sort *query.Sort
	proj *query.Projection
	text *textSearch // the filter's $text (text.go), or nil
	meta *textMeta   // {$meta: "textScore"} in the projection or sort
}

func (e *Engine) compileFind(db, coll string, p FindParams) (*compiled, error) {
	c := &compiled{}
	var err error
	if c.m, c.text, err = e.compileFilterColl(db, coll, p.Filter, p.Vars, p.collator); err != nil {
		return nil, err
	}
	proj, sort, meta, err := splitTextMeta(p.Projection, p.Sort, c.text != nil)
	if err != nil {
		return nil, err
	}
	c.meta = meta
	if len(sort) > 0 && !(len(sort) == 1 && sort[0].Key == "$natural") {
		if c.sort, err = query.CompileSort(sort); err != nil {
			return nil, err
		}
		c.sort = c.sort.WithCollator(bsonColl(p.collator))
	}
	if len(proj) > 0 {
		if c.proj, err = query.CompileProjection(proj); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Find plans and opens a query over db.coll. A missing collection yields
// an empty result (after validating the query), as in MongoDB.
func (e *Engine) Find(db, coll string, p FindParams) (Iterator, *Plan, error) {
	col := e.cat.Collection(db, coll)
	p.collator = collatorFor(col, p.Collation)
	if plan := pointPlan(col, db, coll, p); plan != nil { // point.go
		return e.open(col, plan, &compiled{}, p)
	}
	c, err := e.compileFind(db, coll, p)
	if err != nil {
		return nil, nil, err
	}
	if isOplog(db, coll) {
		return e.findOplog(c, p)
	}
	col = e.cat.Collection(db, coll)
	if col == nil {
		return Empty(), &Plan{Kind: "EOF"}, nil
	}
	plan, err := findPlan(col, p, c.text)
	if err != nil {
		return nil, nil, err
	}
	if err := checkMinMax(p, plan); err != nil {
		return nil, nil, err
	}
	return e.open(col, planAt(p.Snapshot, col, plan, p.Sort), c, p)
}

// open runs plan over col and stacks the find's stages on its scan.
func (e *Engine) open(col *catalog.Collection, plan *Plan, c *compiled, p FindParams) (Iterator, *Plan, error) {
	it, err := e.source(col, plan, p.Snapshot)
	if err != nil {
		return nil, nil, err
	}
	if p.examined != nil {
		it = &countIter{in: it, n: p.examined}
	}
	it = holdIter(it, p.Snapshot)
	if p.Min != nil || p.Max != nil {
		it = newMinMaxIter(it, p, plan.Index)
	}
	if len(p.Filter) > 0 && plan.Kind != "IDHACK" {
		it = &filterIter{in: it, m: c.m, vars: p.Vars}
	}
	it = withOwned(it, p.Owned)
	if c.meta.used() || (p.textScore && c.text != nil) {
		it = &textScoreIter{in: it, ts: c.text}
	}
	if c.sort != nil && !plan.SortCovered {
		topK := int64(0)
		if p.Limit > 0 {
			topK = p.Skip + p.Limit
		}
		if it, err = sortRows(it, c.sort, topK, p.AllowDiskUse); err != nil {
			return nil, nil, err
		}
	}
	if p.Skip > 0 || p.Limit > 0 {
		it = &skipLimitIter{in: it, skip: p.Skip, limit: p.Limit}
	}
	if p.ReturnKey {
		it = &returnKeyIter{in: it, key: returnKeyOf(plan)}
	} else if c.meta.used() {
		it = &textProjectIter{in: it, p: c.proj, meta: c.meta}
	} else if c.proj != nil {
		it = &projectIter{in: it, p: c.proj}
	}
	return iterx.Checked(it, false), plan, nil
}

// source opens the plan's scan.
func (e *Engine) source(col *catalog.Collection, plan *Plan, snap *catalog.Snapshot) (Iterator, error) {
	switch plan.Kind {
	case "IDHACK":
		raw, ok, err := col.FindByIDAt(snap, plan.ID)
		if err != nil || !ok {
			return Empty(), err
		}
		return rows([]*Row{{Raw: raw, Pos: -1}}), nil
	case "IXSCAN", "TEXT":
		return &multiScan{col: col, plan: plan, snap: snap}, nil
	case geoNear2dsphere, geoNear2d:
		return geoNearSource(col, plan, snap)
	default:
		return iterx.Map(col.ScanAt(snap, plan.Reverse), rowOf), nil
	}
}

// multiScan runs one index scan per interval, in order.
type multiScan struct {
	col  *catalog.Collection
	plan *Plan
	snap *catalog.Snapshot // nil: the latest state; held by the enclosing holdIter
	i    int
	cur  catalog.DocIterator
	seen map[string]struct{} // _id keys already returned, when intervals may overlap a document
	err  error
}

func (m *multiScan) Next() (*Row, bool) {
	for m.err == nil {
		if m.cur == nil {
			if m.i >= len(m.plan.Intervals) {
				return nil, false
			}
			iv := m.plan.Intervals[m.i]
			m.i++
			m.cur = m.col.ScanIndexAt(m.snap, m.plan.Index, iv.lo, iv.hi, m.plan.Reverse)
		}
		raw, ok := m.cur.Next()
		if ok {
			if len(m.plan.Intervals) > 1 && m.plan.Index.Multikey && m.dup(raw) {
				continue
			}
			return &Row{Raw: raw, Pos: -1}, true
		}
		m.err = m.cur.Err()
		_ = m.cur.Close()
		m.cur = nil
	}
	return nil, false
}

func (m *multiScan) Err() error { return m.err }

// dup reports whether a document was already returned by an earlier
// interval (a multikey document can match several $in values).
func (m *multiScan) dup(raw []byte) bool {
	if m.seen == nil {
		m.seen = map[string]struct{}{}
	}
	id := bson.Raw(raw).Lookup("_id")
	k := string(id.Value)
	if _, ok := m.seen[k]; ok {
		return true
	}
	m.seen[k] = struct{}{}
	return false
}

func (m *multiScan) Close() error {
	var err error
	if m.cur != nil {
		err = m.cur.Close()
		m.cur = nil
	}
	m.i = len(m.plan.Intervals)
	return err
}
