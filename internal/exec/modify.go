package exec

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/query"
	"github.com/relaydb/relaydb/internal/session"
	"github.com/relaydb/relaydb/internal/storage/keystring"
	"github.com/relaydb/relaydb/internal/update"
)

// UpdateStmt is one statement of an update command.
type UpdateStmt struct {
	Q            bson.D
	U            any // operator document, replacement, or pipeline
	Upsert       bool
	Multi        bool
	ArrayFilters []bson.D
	Hint         any
	// Owned filters the documents the statement matches (a versioned
	// write on a shard skips orphans; nil: every document).
	Owned OwnershipFilter
	// BypassValidation skips the collection's validator
	// (bypassDocumentValidation).
	BypassValidation bool
	// Collation is the statement's collation (collation.go).
	Collation Collation
}

// Update runs update statements; vars are the command's let variables.
func (e *Engine) Update(db, coll string, stmts []UpdateStmt, ordered bool, vars *expr.Vars, retry *Retry) *WriteResult {
	res := &WriteResult{}
	for i, s := range stmts {
		r := retry
		if s.Multi {
			r = retry.forMulti() // multi-document statements are not retryable
		}
		if rec, ran := e.done(r, i); ran {
			res.replayUpdate(i, rec)
			continue
		}
		if err := e.updateStmt(db, coll, i, s, vars, res, r); err != nil {
			if res.fail(i, err, ordered) {
				break
			}
		}
	}
	return res
}

func (e *Engine) updateStmt(db, coll string, i int, s UpdateStmt, vars *expr.Vars, res *WriteResult, retry *Retry) error {
	cr := collatorFor(e.cat.Collection(db, coll), s.Collation)
	u, err := update.Compile(s.U, update.Options{ArrayFilters: s.ArrayFilters, Vars: vars, Collator: bsonColl(cr)})
	if err != nil {
		return err
	}
	if s.Multi && u.IsReplacement() {
		return mongoerr.New(mongoerr.FailedToParse, "multi update is not supported for replacement-style update")
	}
	m, _, err := e.compileFilterColl(db, coll, s.Q, vars, cr)
	if err != nil {
		return err
	}
	col := e.cat.Collection(db, coll)
	var ids []any
	if col != nil {
		if ids, err = e.matchIDs(col, FindParams{Filter: s.Q, Hint: s.Hint, Vars: vars, Collation: s.Collation, Owned: s.Owned, Snapshot: retry.view()}, !s.Multi); err != nil {
			return err
		}
	}
	for _, id := range ids {
		matched, err := e.modifyByID(col, retry.view(), id, m, vars, func(old bson.D, pos int) (bson.D, error) {
			return e.applyUpdate(col, old, pos, u, res, retry, i, KeyChange{Query: s.Q, Multi: s.Multi}, s.BypassValidation)
		})
		if err != nil {
			return err
		}
		if matched {
			res.N++
		}
	}
	if len(ids) == 0 && s.Upsert {
		return e.upsert(db, coll, i, s.Q, u, res, retry, s.BypassValidation)
	}
	return nil
}

// applyUpdate computes and commits one document's update; k (its query
// and multi) is completed for the key guard.
func (e *Engine) applyUpdate(col *catalog.Collection, old bson.D, pos int, u *update.Update, res *WriteResult, retry *Retry, i int, k KeyChange, bypass bool) (bson.D, error) {
	r, err := u.Apply(old, update.ApplyContext{MatchedPos: pos, Now: e.now()})
	if err != nil {
		return nil, err
	}
	id := old[0].Value
	if !r.Changed {
		e.record(retry, i, session.Stmt{Op: "n", ID: id})
		return old, nil
	}
	if err := bsonx.CheckUserDepth(r.Doc); err != nil {
		return nil, err
	}
	if err := e.validate(col, old, r.Doc, bypass); err != nil {
		return nil, err
	}
	k.DB, k.Coll, k.Old, k.New, k.Retryable = col.DB, col.Name, old, r.Doc, retry != nil
	if err := e.guard(k); err != nil {
		return nil, err
	}
	w, err := e.updateDoc(col, old, r.Doc, r.Oplog, retry, i)
	if err != nil {
		return nil, err
	}
	res.committed(w)
	res.NModified++
	e.record(retry, i, session.Stmt{Op: "u", ID: id})
	return r.Doc, nil
}

func (e *Engine) upsert(db, coll string, i int, q bson.D, u *update.Update, res *WriteResult, retry *Retry, bypass bool) error {
	doc, err := u.Upsert(q, update.ApplyContext{MatchedPos: -1, IsInsert: true, Now: e.now()})
	if err != nil {
		return err
	}
	col, err := e.collectionForStmt(db, coll, retry)
	if err != nil {
		return err
	}
	doc, err = prepareInsert(doc)
	if err != nil {
		return err
	}
	if err := e.validate(col, nil, doc, bypass); err != nil {
		return err
	}
	if err := e.guard(KeyChange{DB: db, Coll: coll, Query: q, New: doc, Upsert: true, Retryable: retry != nil}); err != nil {
		return err
	}
	unlock := e.lockCapped(col)
	defer unlock()
	w, err := e.insertDoc(col, doc, retry, i)
	if err != nil {
		return err
	}
	if err := e.evictCapped(col, doc[0].Value); err != nil {
		return err
	}
	res.committed(w)
	res.N++
	res.Upserted = append(res.Upserted, Upserted{Index: i, ID: doc[0].Value})
	e.record(retry, i, session.Stmt{Op: "i", Upserted: true, ID: doc[0].Value})
	return nil
}

// matchIDs returns the _ids of documents matching filter, in sort order
// when sort is given; only the first when one is set.
func (e *Engine) matchIDs(col *catalog.Collection, p FindParams, one bool) ([]any, error) {
	if one {
		p.Limit = 1
	}
	it, _, err := e.Find(col.DB, col.Name, p)
	if err != nil {
		return nil, err
	}
	defer it.Close()
	var ids []any
	for {
		r, ok := it.Next()
		if !ok {
			if err := it.Err(); err != nil {
				return nil, err
			}
			return ids, nil
		}
		d, err := r.decoded()
		if err != nil {
			return nil, err
		}
		id, _ := bsonx.Get(d, "_id")
		ids = append(ids, id)
	}
}

// maxWriteConflictRetries bounds retries when a document changed between
// the re-read and the commit (possible only with writers that bypass the
// lock stripes, such as the TTL reaper).
const maxWriteConflictRetries = 10

// modifyByID re-reads the document under its lock stripe, re-checks the
// filter and calls fn, retrying on WriteConflict. It reports whether the
// document still matched.
func (e *Engine) modifyByID(col *catalog.Collection, snap *catalog.Snapshot, id any, m *query.Matcher, vars *expr.Vars, fn func(old bson.D, pos int) (bson.D, error)) (bool, error) {
	for attempt := 0; ; attempt++ {
		matched, err := e.modifyOnce(col, snap, id, m, vars, fn)
		if !mongoerr.Is(err, mongoerr.WriteConflict) || attempt >= maxWriteConflictRetries {
			return matched, err
		}
	}
}

func (e *Engine) modifyOnce(col *catalog.Collection, snap *catalog.Snapshot, id any, m *query.Matcher, vars *expr.Vars, fn func(old bson.D, pos int) (bson.D, error)) (bool, error) {
	mu := e.locks.lock(col.ID, keystring.Key(id))
	defer mu.Unlock()
	raw, ok, err := col.FindByIDAt(snap, id)
	if err != nil || !ok {
		return false, err
	}
	old, err := bsonx.Decode(raw)
	if err != nil {
		return false, err
	}
	matched, pos := m.MatchVars(old, vars)
	if !matched {
		return false, nil
	}
	_, err = fn(old, pos)
	return err == nil, err
}

// DeleteStmt is one statement of a delete command.
type DeleteStmt struct {
	Q     bson.D
	Limit int64 // 0 = all, 1 = one
	Hint  any
	// Owned filters the documents the statement matches (UpdateStmt.Owned).
	Owned OwnershipFilter
	// Collation is the statement's collation (collation.go).
	Collation Collation
}

// Delete runs delete statements; vars are the command's let variables.
func (e *Engine) Delete(db, coll string, stmts []DeleteStmt, ordered bool, vars *expr.Vars, retry *Retry) *WriteResult {
	res := &WriteResult{}
	for i, s := range stmts {
		r := retry
		if s.Limit != 1 {
			r = retry.forMulti() // deleting many is not retryable
		}
		if rec, ran := e.done(r, i); ran {
			if rec.Op == "d" {
				res.N++
			}
			continue
		}
		if err := e.deleteStmt(db, coll, i, s, vars, res, r); err != nil {
			if res.fail(i, err, ordered) {
				break
			}
		}
	}
	return res
}

func (e *Engine) deleteStmt(db, coll string, i int, s DeleteStmt, vars *expr.Vars, res *WriteResult, retry *Retry) error {
	m, _, err := e.compileFilterColl(db, coll, s.Q, vars, collatorFor(e.cat.Collection(db, coll), s.Collation))
	if err != nil {
		return err
	}
	col := e.cat.Collection(db, coll)
	if col == nil {
		return nil
	}
	ids, err := e.matchIDs(col, FindParams{Filter: s.Q, Hint: s.Hint, Vars: vars, Collation: s.Collation, Owned: s.Owned, Snapshot: retry.view()}, s.Limit == 1)
	if err != nil {
		return err
	}
	for _, id := range ids {
		matched, err := e.modifyByID(col, retry.view(), id, m, vars, func(old bson.D, _ int) (bson.D, error) {
			w, err := e.deleteDoc(col, old, retry, i)
			if err == nil {
				res.committed(w)
				e.record(retry, i, session.Stmt{Op: "d", ID: old[0].Value})
			}
			return nil, err
		})
		if err != nil {
			return err
		}
		if matched {
			res.N++
		}
	}
	return nil
}
