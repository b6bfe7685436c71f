package exec

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/query"
	"github.com/relaydb/relaydb/internal/session"
	"github.com/relaydb/relaydb/internal/update"
)

// FindAndModifyParams are findAndModify's options.
type FindAndModifyParams struct {
	Query, Sort, Fields bson.D
	Remove, New, Upsert bool
	Update              any
	ArrayFilters        []bson.D
	Hint                any
	Vars                *expr.Vars
	Retry               *Retry // nil: not a retryable write
	// Owned filters the documents the query matches (UpdateStmt.Owned).
	Owned OwnershipFilter
	// BypassValidation skips the collection's validator.
	BypassValidation bool
	// Collation is the command's collation (collation.go).
	Collation Collation
}

// FindAndModifyResult is the command's value and lastErrorObject.
type FindAndModifyResult struct {
	Value           bson.D // nil = null
	N               int64
	UpdatedExisting bool
	UpsertedID      any
	Write           WriteResult
}

// FindAndModify atomically finds one document and updates or removes it.
func (e *Engine) FindAndModify(db, coll string, p FindAndModifyParams) (*FindAndModifyResult, error) {
	if p.Remove == (p.Update != nil) {
		return nil, mongoerr.New(mongoerr.FailedToParse, "Either an update or remove=true must be specified")
	}
	if p.Remove && (p.Upsert || p.New) {
		return nil, mongoerr.New(mongoerr.FailedToParse, "Cannot specify both upsert=true and remove=true")
	}
	m, ts, err := e.compileFilterColl(db, coll, p.Query, p.Vars, collatorFor(e.cat.Collection(db, coll), p.Collation))
	if err != nil {
		return nil, err
	}
	fields, _, meta, err := splitTextMeta(p.Fields, nil, ts != nil)
	if err != nil {
		return nil, err
	}
	var proj *query.Projection
	if len(fields) > 0 {
		if proj, err = query.CompileProjection(fields); err != nil {
			return nil, err
		}
	}
	var u *update.Update
	if p.Update != nil {
		opts := update.Options{ArrayFilters: p.ArrayFilters, Vars: p.Vars, Collator: bsonColl(collatorFor(e.cat.Collection(db, coll), p.Collation))}
		if u, err = update.Compile(p.Update, opts); err != nil {
			return nil, err
		}
	}
	if rec, ran := e.done(p.Retry, 0); ran {
		return e.replayFAM(db, coll, rec, p, proj)
	}
	res := &FindAndModifyResult{}
	col := e.cat.Collection(db, coll)
	if col != nil {
		ids, err := e.matchIDs(col, FindParams{Filter: p.Query, Sort: p.Sort, Hint: p.Hint, Vars: p.Vars, Collation: p.Collation, Owned: p.Owned, Snapshot: p.Retry.view()}, true)
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			if err := e.famOne(col, id, m, u, p, proj, res); err != nil {
				return nil, err
			}
		}
		res.Value = withTextScore(res.Value, meta, ts)
	}
	if res.N == 0 && p.Upsert {
		if err := e.upsert(db, coll, 0, p.Query, u, &res.Write, p.Retry, p.BypassValidation); err != nil {
			return nil, err
		}
		res.N, res.UpsertedID = 1, res.Write.Upserted[0].ID
		if p.New {
			c := e.cat.Collection(db, coll)
			raw, ok, err := c.FindByIDAt(p.Retry.view(), res.UpsertedID)
			if err == nil && ok {
				res.Value, err = project(raw, proj, -1)
			}
			if err != nil {
				return nil, err
			}
		}
	}
	keepImage(p.Retry, res) // failpoint.go
	return res, nil
}

func (e *Engine) famOne(col *catalog.Collection, id any, m *query.Matcher, u *update.Update, p FindAndModifyParams, proj *query.Projection, res *FindAndModifyResult) error {
	_, err := e.modifyByID(col, p.Retry.view(), id, m, p.Vars, func(old bson.D, pos int) (bson.D, error) {
		res.N = 1
		var after bson.D
		if p.Remove {
			w, err := e.deleteDoc(col, old, p.Retry, 0)
			if err != nil {
				return nil, err
			}
			res.Write.committed(w)
			e.record(p.Retry, 0, session.Stmt{Op: "d", ID: id})
		} else {
			res.UpdatedExisting = true
			var err error
			if after, err = e.applyUpdate(col, old, pos, u, &res.Write, p.Retry, 0, KeyChange{Query: p.Query}, p.BypassValidation); err != nil {
				return nil, err
			}
		}
		out := old
		if p.New {
			out = after
		}
		var err error
		res.Value, err = projectDoc(out, proj, pos)
		return nil, err
	})
	return err
}

func project(raw []byte, proj *query.Projection, pos int) (bson.D, error) {
	r := &Row{Raw: raw}
	d, err := r.decoded()
	if err != nil {
		return nil, err
	}
	return projectDoc(d, proj, pos)
}

func projectDoc(d bson.D, proj *query.Projection, pos int) (bson.D, error) {
	if proj == nil {
		return d, nil
	}
	return proj.Apply(d, pos)
}

// replayFAM answers a retried findAndModify whose statement already ran:
// the counts come from its record; the document is read again by _id, so
// a retry returns the current document rather than the original pre- or
// post-image (MongoDB keeps the image). TODO(#4): store the image.
func (e *Engine) replayFAM(db, coll string, rec session.Stmt, p FindAndModifyParams, proj *query.Projection) (*FindAndModifyResult, error) {
	res := &FindAndModifyResult{N: 1, UpdatedExisting: rec.Op == "u" || rec.Op == "n"}
	if rec.Op == "i" {
		res.UpsertedID = rec.ID
	}
	if img, ok := retryImageOf(p.Retry); ok { // failpoint.go
		res.Value = img // the document the first attempt returned
		return res, nil
	}
	if rec.Op == "d" || (!p.New && rec.Op == "i") {
		return res, nil
	}
	if col := e.cat.Collection(db, coll); col != nil {
		raw, ok, err := col.FindByID(rec.ID)
		if err != nil {
			return nil, err
		}
		if ok {
			if res.Value, err = project(raw, proj, -1); err != nil {
				return nil, err
			}
		}
	}
	return res, nil
}
