package exec

import (
	"crypto/rand"
	"encoding/hex"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// $out replaces its target atomically, as MongoDB's does: the results go
// into a temporary collection tmp.agg_out.<hex> of the target's database,
// created with the target's options (validator, capped, ...) and
// secondary indexes, in batches of outBatchDocs documents / outBatchBytes
// bytes; the temporary collection is then renamed over the target with
// dropTarget (one catalog batch, replicated as one renameCollection
// entry). A reader sees the old contents or the new, never a half-filled
// target; a failed aggregate leaves the target as it was and drops the
// temporary collection.
//
// TODO(#14): MongoDB also fails the $out when the target's options or
// indexes change while it runs, and drops leftover tmp.agg_out.*
// collections (a crash mid-$out) at startup.

// The bounds of one insert into the temporary collection.
const (
	outBatchDocs  = 1000
	outBatchBytes = 8 << 20
)

// WriteOut replaces db.coll's contents with it's rows ($out).
func (e *Engine) WriteOut(it Iterator, db, coll string) error { return e.writeOut(it, db, coll, false) }

// writeOut is WriteOut with bypassDocumentValidation.
func (e *Engine) writeOut(it Iterator, db, coll string, bypass bool) error {
	defer it.Close()
	var opts bson.D
	var specs []bson.D
	if old := e.cat.Collection(db, coll); old != nil {
		if len(old.Options) > 0 && old.Options[0].Key == "viewOn" {
			return mongoerr.New(mongoerr.CommandNotSupportedOnView, "Namespace %s is a view, not a collection", old.NS())
		}
		opts = old.Options
		for _, idx := range old.Indexes() {
			if !idx.IsID() {
				specs = append(specs, idx.Spec)
			}
		}
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	tmp := "tmp.agg_out." + hex.EncodeToString(b[:])
	tc, err := e.cat.CreateCollection(db, tmp, opts)
	if err != nil {
		return err
	}
	if len(specs) > 0 {
		_, _, err = e.cat.CreateIndexes(tc, specs)
	}
	if err == nil {
		err = e.fillOut(it, db, tmp, bypass)
	}
	if err == nil {
		err = e.cat.RenameCollection(db, tmp, db, coll, true)
	}
	if err != nil {
		_ = e.cat.DropCollection(db, tmp)
	}
	return err
}

// fillOut inserts it's rows into db.tmp, a bounded batch at a time.
func (e *Engine) fillOut(it Iterator, db, tmp string, bypass bool) error {
	var batch []bson.D
	size := 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		res := e.InsertBypass(db, tmp, batch, true, nil, bypass)
		batch, size = batch[:0], 0
		if len(res.Errors) > 0 {
			return res.Errors[0].Err
		}
		return nil
	}
	for {
		r, ok := it.Next()
		if !ok {
			if err := it.Err(); err != nil {
				return err
			}
			return flush()
		}
		d, err := r.decoded()
		if err != nil {
			return err
		}
		raw, err := r.Bytes()
		if err != nil {
			return err
		}
		if len(batch) >= outBatchDocs || size+len(raw) > outBatchBytes {
			if err := flush(); err != nil {
				return err
			}
		}
		batch, size = append(batch, d), size+len(raw)
	}
}
