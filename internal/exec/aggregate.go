package exec

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg"
	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/collation"
	"github.com/relaydb/relaydb/internal/iterx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// AggregateParams are aggregate's options.
type AggregateParams struct {
	Pipeline     bson.A
	AllowDiskUse bool
	Hint         any
	// Vars are the command's let variables (expr.EvalLet).
	Vars *expr.Vars
	// LocalSessions lists sessions for $listLocalSessions.
	LocalSessions func() ([]bson.D, error)
	// CollStats describes the collection for $collStats (agg.Env.CollStats).
	CollStats func(scale int64) (agg.CollStatsInfo, error)
	// Snapshot is the view every stage reads (see FindParams.Snapshot).
	Snapshot *catalog.Snapshot
	// Owned filters the documents the first stage reads from the
	// collection (FindParams.Owned).
	Owned OwnershipFilter
	// BypassValidation skips the $out/$merge target's validator
	// (bypassDocumentValidation).
	BypassValidation bool
	// Collation is the aggregate's collation (collation.go).
	Collation Collation
}

// Aggregate runs a pipeline over db.coll (coll "" = a database-level
// aggregate, whose first stage produces the documents). A leading $match is
// pushed down to the planner so it can use an index. A final $out or $merge
// writes the results and the returned iterator is empty.
func (e *Engine) Aggregate(db, coll string, p AggregateParams) (Iterator, error) {
	stages, out, merge, err := agg.SplitOutput(p.Pipeline, db, p.Vars)
	if err != nil {
		return nil, err
	}
	collator := collatorFor(e.cat.Collection(db, coll), p.Collation)
	env := agg.Env{DB: db, Lookup: e.lookupSourceAt(p.Snapshot, collator.Spec()), Vars: p.Vars, LocalSessions: p.LocalSessions,
		CollStats: p.CollStats, AllowDiskUse: p.AllowDiskUse, TempDir: e.TempDir(), Collator: collator}
	e.aggProcessHooks(&env, coll)
	pl, err := agg.Compile(stages, env)
	if err != nil {
		return nil, err
	}
	var src agg.Iterator = agg.Slice(nil)
	if gn := pl.GeoNear(); gn != nil && coll != "" {
		if src, err = e.geoNearDocs(db, coll, gn, p); err != nil {
			return nil, err
		}
	} else if coll != "" {
		it, _, err := e.Find(db, coll, FindParams{Filter: pl.FirstMatch(), Hint: p.Hint, AllowDiskUse: p.AllowDiskUse, Vars: p.Vars,
			Snapshot: p.Snapshot, Owned: p.Owned, textScore: true, Collation: p.Collation})
		if err != nil {
			return nil, err
		}
		src = docsOf(it)
	}
	res := iterx.Map(pl.Run(src), outputRow(pl.FirstMatch()))
	switch {
	case out != nil:
		return Empty(), e.writeOut(res, out.DB, out.Coll, p.BypassValidation)
	case merge != nil:
		return Empty(), e.merge(res, merge, p.BypassValidation)
	}
	return res, nil
}

// lookupSourceAt feeds $lookup and friends with a whole collection, read
// in snap (nil: the latest state); a view is read through its pipeline.
// A view read this way must have the pipeline's collation (spec), as
// MongoDB requires (OptionNotSupportedOnView otherwise).
func (e *Engine) lookupSourceAt(snap *catalog.Snapshot, spec *collation.Spec) func(db, coll string) (agg.Iterator, error) {
	return func(db, coll string) (agg.Iterator, error) {
		source, pipeline, err := e.ResolveView(db, coll)
		if err != nil {
			return nil, err
		}
		if pipeline != nil {
			if err := sameViewCollation(e.cat.Collection(db, coll), spec); err != nil {
				return nil, err
			}
			it, err := e.Aggregate(db, source, AggregateParams{Pipeline: pipeline, Snapshot: snap, Collation: Collation{Spec: spec, Given: true}})
			if err != nil {
				return nil, err
			}
			return docsOf(it), nil
		}
		it, _, err := e.Find(db, coll, FindParams{Snapshot: snap})
		if err != nil {
			return nil, err
		}
		return docsOf(it), nil
	}
}

// docsOf feeds rows to a pipeline as documents.
func docsOf(it Iterator) agg.Iterator { return iterx.Map(it, (*Row).decoded) }

// rowOfDoc wraps a pipeline's output document as a row.
func rowOfDoc(d bson.D) (*Row, error) { return &Row{Doc: d, Pos: -1}, nil }

// Count counts documents matching filter after skip/limit.
func (e *Engine) Count(db, coll string, filter bson.D, skip, limit int64, hint any) (int64, error) {
	return e.CountAt(nil, nil, db, coll, filter, skip, limit, hint, Collation{})
}

// CountAt is Count in snapshot snap (nil: the latest state), of the
// documents own owns (nil: all). Without a query filter or hint it takes
// the document count (fastCount), else it scans under collation co.
func (e *Engine) CountAt(snap *catalog.Snapshot, own OwnershipFilter, db, coll string, filter bson.D, skip, limit int64, hint any, co Collation) (int64, error) {
	return e.CountAtVars(snap, own, db, coll, filter, skip, limit, hint, co, nil)
}

// CountAtVars is CountAt with the filter compiled under vars (its
// JavaScript session, bounded by the command's maxTimeMS); nil: none.
func (e *Engine) CountAtVars(snap *catalog.Snapshot, own OwnershipFilter, db, coll string, filter bson.D, skip, limit int64, hint any, co Collation, vars *expr.Vars) (int64, error) {
	col := e.cat.Collection(db, coll)
	if col != nil && len(filter) == 0 && hint == nil {
		n, ok, err := fastCount(col, snap, own)
		if err != nil {
			return 0, err
		}
		if ok {
			return skipLimit(n, skip, limit), nil
		}
	}
	return e.countScan(FindParams{Filter: filter, Skip: skip, Limit: limit, Hint: hint, Snapshot: snap, Owned: own, Collation: co, Vars: vars}, db, coll)
}

// skipLimit is a count of n after skip and limit (0: none).
func skipLimit(n, skip, limit int64) int64 {
	n = max(n-skip, 0)
	if limit > 0 && n > limit {
		n = limit
	}
	return n
}

// countScan counts by running the query.
func (e *Engine) countScan(p FindParams, db, coll string) (int64, error) {
	it, _, err := e.Find(db, coll, p)
	if err != nil {
		return 0, err
	}
	defer it.Close()
	var n int64
	for _, ok := it.Next(); ok; _, ok = it.Next() {
		n++
	}
	if err := it.Err(); err != nil {
		return 0, err
	}
	return n, nil
}

// Distinct returns the distinct values of key among matching documents;
// array values contribute their elements, as in MongoDB.
func (e *Engine) Distinct(db, coll, key string, filter bson.D) (bson.A, error) {
	return e.DistinctAt(nil, nil, db, coll, key, filter, Collation{})
}

// DistinctAt is Distinct in snapshot snap (nil: the latest state), among
// the documents own owns (nil: all), values compared under collation co.
func (e *Engine) DistinctAt(snap *catalog.Snapshot, own OwnershipFilter, db, coll, key string, filter bson.D, co Collation) (bson.A, error) {
	return e.DistinctAtVars(snap, own, db, coll, key, filter, co, nil)
}

// DistinctAtVars is DistinctAt with the filter compiled under vars (as
// CountAtVars).
func (e *Engine) DistinctAtVars(snap *catalog.Snapshot, own OwnershipFilter, db, coll, key string, filter bson.D, co Collation, vars *expr.Vars) (bson.A, error) {
	if key == "" {
		return nil, mongoerr.New(mongoerr.InvalidPath, "FieldPath cannot be constructed with empty string")
	}
	it, _, err := e.Find(db, coll, FindParams{Filter: filter, Snapshot: snap, Owned: own, Collation: co, Vars: vars})
	if err != nil {
		return nil, err
	}
	defer it.Close()
	vals := distinctSet{coll: bsonColl(collatorFor(e.cat.Collection(db, coll), co))}
	for {
		r, ok := it.Next()
		if !ok {
			if err := it.Err(); err != nil {
				return nil, err
			}
			return vals.sorted(), nil
		}
		d, err := r.decoded()
		if err != nil {
			return nil, err
		}
		vals.addPath(d, key)
	}
}

// Empty returns an iterator with no rows.
func Empty() Iterator { return iterx.Empty[*Row]() }

// WriteOut and writeOut ($out): out_atomic.go.
