package command

import (
	"sort"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Deletes and updates on a time-series collection, as MongoDB 7.0 allows
// them: deletes with any filter and limit (0 or 1); updates only with
// multi: true, no upsert, an update-operator document, a query and
// modifications on the metaField alone (arbitrary updates came in 7.1).
// Each statement is translated to one on the buckets collection
// (bucketFilter) and run there by the engine, so write concern, retryable
// writes (a deleteOne) and the oplog are those of any write. A statement
// that cannot be translated is a write error at its index.
// In a multi-document transaction they are OperationNotSupportedInTransaction
// (263), as MongoDB's. TODO(#14): the 7.1+ arbitrary updates.

// refuseTxn refuses a time-series write in a multi-document transaction,
// as MongoDB does.
func refuseTxn(retry *exec.Retry, what string) error {
	if retry != nil && retry.Txn != nil {
		return mongoerr.New(mongoerr.OperationNotSupportedInTransaction, "Cannot perform %s on a time-series collection in a multi-document transaction", what)
	}
	return nil
}

// tsWrite is what a time-series write of n statements parses before its
// statements: the write concern (writeTarget's checks, the view aside),
// ordered, let and the statement context (no transaction).
type tsWrite struct {
	wc      writeConcern
	ordered bool
	vars    *expr.Vars
	retry   *exec.Retry
}

func (c *Ctx) tsWritePrelude(n int, ordered *any, let bson.D, what string) (w tsWrite, err error) {
	if w.wc, err = c.writeConcern(); err == nil && n > maxWriteBatch {
		err = mongoerr.New(mongoerr.InvalidLength, "Write batch sizes must be between 1 and %d. Got %d operations.", maxWriteBatch, n)
	}
	if err != nil {
		return w, err
	}
	if w.ordered, err = c.ordered(ordered); err != nil {
		return w, err
	}
	if w.vars, w.retry, err = c.stmtContext(let); err != nil {
		return w, err
	}
	return w, refuseTxn(w.retry, what)
}

// deleteTimeseries runs p on a time-series collection.
func deleteTimeseries(c *Ctx, p *request.Delete) (bson.D, error) {
	w, err := c.tsWritePrelude(len(p.Deletes), p.Ordered, p.Let, "a delete")
	if err != nil {
		return nil, err
	}
	wc, ordered, vars, retry := w.wc, w.ordered, w.vars, w.retry
	stmts := make([]exec.DeleteStmt, len(p.Deletes))
	bad := make([]error, len(p.Deletes))
	for i, d := range p.Deletes {
		co, err := opCollation(d.Collation)
		if err != nil {
			return nil, err
		}
		q, err := bucketFilter(d.Q)
		stmts[i], bad[i] = exec.DeleteStmt{Q: q, Limit: int64(d.Limit), Hint: d.Hint.Value, Collation: co}, err
	}
	buckets := bucketsPrefix + string(p.Collection)
	res := runTranslated(bad, ordered, retry, func(idx []int, r *exec.Retry) *exec.WriteResult {
		sub := make([]exec.DeleteStmt, len(idx))
		for j, i := range idx {
			sub[j] = stmts[i]
		}
		return c.D.eng.Delete(c.DB, buckets, sub, ordered, vars, r)
	})
	c.D.metrics.opcounters.delete.Add(int64(len(stmts)))
	return c.writeReply(wc, res, false), nil
}

// updateTimeseries runs p on the time-series collection whose options are ts.
func updateTimeseries(c *Ctx, p *request.Update, ts bson.D) (bson.D, error) {
	w, err := c.tsWritePrelude(len(p.Updates), p.Ordered, p.Let, "an update")
	if err != nil {
		return nil, err
	}
	wc, ordered, vars, retry := w.wc, w.ordered, w.vars, w.retry
	meta, _ := lookupOpt(ts, "metaField").(string)
	stmts := make([]exec.UpdateStmt, len(p.Updates))
	bad := make([]error, len(p.Updates))
	for i, u := range p.Updates {
		co, err := opCollation(u.Collation)
		if err != nil {
			return nil, err
		}
		s := exec.UpdateStmt{Q: u.Q, U: u.U.Value, Upsert: u.Upsert, Multi: u.Multi, ArrayFilters: []bson.D(u.ArrayFilters),
			Hint: u.Hint.Value, Collation: co}
		stmts[i], bad[i] = translateUpdate(s, meta)
	}
	buckets := bucketsPrefix + string(p.Collection)
	res := runTranslated(bad, ordered, retry, func(idx []int, r *exec.Retry) *exec.WriteResult {
		sub := make([]exec.UpdateStmt, len(idx))
		for j, i := range idx {
			sub[j] = stmts[i]
		}
		return c.D.eng.Update(c.DB, buckets, sub, ordered, vars, r)
	})
	c.D.metrics.opcounters.update.Add(int64(len(stmts)))
	return c.writeReply(wc, res, true), nil
}

// translateUpdate checks s against MongoDB 7.0's time-series rules and
// returns it on buckets.
func translateUpdate(s exec.UpdateStmt, meta string) (exec.UpdateStmt, error) {
	switch {
	case !s.Multi:
		return s, mongoerr.New(mongoerr.InvalidOptions, "Cannot perform a non-multi update on a time-series collection")
	case s.Upsert:
		return s, mongoerr.New(mongoerr.InvalidOptions, "Cannot perform an upsert on a time-series collection")
	case meta == "":
		return s, mongoerr.New(mongoerr.InvalidOptions, "Cannot perform an update on a time-series collection that does not have a metaField")
	case !metaOnlyFilter(s.Q, meta):
		return s, mongoerr.New(mongoerr.InvalidOptions, "Cannot perform an update on a time-series collection when querying on a field that is not the metaField '%s'", meta)
	}
	u, err := bucketUpdate(s.U, meta)
	if err != nil {
		return s, err
	}
	q, err := bucketFilter(s.Q)
	s.Q, s.U = q, u
	return s, err
}

// bucketUpdate translates an update-operator document whose paths are all
// under meta.
func bucketUpdate(u any, meta string) (bson.D, error) {
	doc, ok := u.(bson.D)
	if !ok || len(doc) == 0 || !strings.HasPrefix(doc[0].Key, "$") {
		return nil, mongoerr.New(mongoerr.InvalidOptions, "Cannot perform a time-series update with a replacement document or a pipeline: only update operators may be used")
	}
	notMeta := mongoerr.New(mongoerr.InvalidOptions, "Cannot perform an update on a time-series collection which updates a field that is not the metaField '%s'", meta)
	out := make(bson.D, 0, len(doc))
	for _, op := range doc {
		fields, ok := op.Value.(bson.D)
		if !ok || !strings.HasPrefix(op.Key, "$") {
			out = append(out, op) // malformed: the update compiler reports it
			continue
		}
		tf := make(bson.D, len(fields))
		for i, f := range fields {
			if !isMetaPath(f.Key, meta) {
				return nil, notMeta
			}
			v := f.Value
			if to, isStr := v.(string); isStr && op.Key == "$rename" {
				if !isMetaPath(to, meta) {
					return nil, notMeta
				}
				v = measurementPrefix + to
			}
			tf[i] = bson.E{Key: measurementPrefix + f.Key, Value: v}
		}
		out = append(out, bson.E{Key: op.Key, Value: tf})
	}
	return out, nil
}

// runTranslated runs the statements whose translation succeeded (bad[i]
// nil) with run and merges the translation errors in at their indexes:
// ordered, only those before the first bad statement run. The engine sees
// the statements renumbered; their stmtIds (retryable writes) stay the
// command's.
func runTranslated(bad []error, ordered bool, retry *exec.Retry, run func(idx []int, r *exec.Retry) *exec.WriteResult) *exec.WriteResult {
	var idx []int
	var errs []exec.WriteError
	for i, err := range bad {
		if err != nil {
			errs = append(errs, exec.WriteError{Index: i, Err: mongoerr.From(err)})
			if ordered {
				break
			}
			continue
		}
		idx = append(idx, i)
	}
	res := &exec.WriteResult{}
	if len(idx) > 0 {
		res = run(idx, renumbered(retry, idx))
		for j := range res.Errors {
			res.Errors[j].Index = idx[res.Errors[j].Index]
		}
		for j := range res.Upserted {
			res.Upserted[j].Index = idx[res.Upserted[j].Index]
		}
	}
	if ordered && len(res.Errors) > 0 {
		return res // the engine stopped before the bad statement
	}
	res.Errors = append(res.Errors, errs...)
	sort.SliceStable(res.Errors, func(a, b int) bool { return res.Errors[a].Index < res.Errors[b].Index })
	return res
}

// renumbered is retry for the statements idx of the command.
func renumbered(retry *exec.Retry, idx []int) *exec.Retry {
	if retry == nil {
		return nil
	}
	r := *retry
	r.StmtIDs = make([]int32, len(idx))
	for j, i := range idx {
		r.StmtIDs[j] = int32(i)
		if retry.StmtIDs != nil && i < len(retry.StmtIDs) {
			r.StmtIDs[j] = retry.StmtIDs[i]
		}
	}
	return &r
}
