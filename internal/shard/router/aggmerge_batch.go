package router

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg"
	"github.com/relaydb/relaydb/internal/bsonx"
)

// mergeBatch is $merge on _id for a batch of results: one find of the
// targets by _id, agg's decision per result in order (each seeing the
// writes decided before it), then the writes in that order, consecutive
// inserts or updates in one ordered command. A failing decision sends
// the writes decided before it, then fails.
func (r *Router) mergeBatch(c *call, m *agg.MergeSpec, docs []bson.D) error {
	prepared := make([]bson.D, 0, len(docs))
	ids := bson.A{}
	for _, d := range docs {
		doc, _, err := m.Prepare(d)
		if err != nil {
			return err
		}
		id, _ := bsonx.Get(doc, "_id")
		prepared, ids = append(prepared, doc), append(ids, id)
	}
	known, err := r.findByIDs(c, m, ids)
	if err != nil {
		return err
	}
	var w mergeWrites
	for _, doc := range prepared {
		id, _ := bsonx.Get(doc, "_id")
		next, action, err := m.Apply(known.get(id), doc)
		if err != nil {
			if ferr := r.sendMergeWrites(c, m, w); ferr != nil {
				return ferr
			}
			return err
		}
		switch action {
		case agg.MergeInsert, agg.MergeReplace:
			w.add(action, next)
			known.set(id, next)
		}
	}
	return r.sendMergeWrites(c, m, w)
}

// byID holds documents by _id (BSON equality: 1 and 1.0 are one key).
type byID struct{ docs []bson.D }

func (b *byID) get(id any) bson.D {
	for _, d := range b.docs {
		if v, _ := bsonx.Get(d, "_id"); bsonx.Equal(v, id) {
			return d
		}
	}
	return nil
}

func (b *byID) set(id any, doc bson.D) {
	for i, d := range b.docs {
		if v, _ := bsonx.Get(d, "_id"); bsonx.Equal(v, id) {
			b.docs[i] = doc
			return
		}
	}
	b.docs = append(b.docs, doc)
}

// findByIDs reads the target documents with these _ids.
func (r *Router) findByIDs(c *call, m *agg.MergeSpec, ids bson.A) (*byID, error) {
	cmd := bson.D{{Key: "find", Value: m.Coll}, {Key: "filter", Value: bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: ids}}}}}}
	reply, err := r.subCommand(c, m.DB, cmd)
	if err != nil {
		return nil, err
	}
	p := &mergePipe{c: c}
	rc := &routerCursor{r: r, p: p, db: m.DB, coll: m.Coll, id: cursorID(reply), buf: firstBatch(reply)}
	defer rc.close()
	known := &byID{}
	for {
		d, ok, err := rc.next()
		if err != nil || !ok {
			return known, err
		}
		known.docs = append(known.docs, d)
	}
}

// mergeWrites are the writes of a batch in order: runs of inserts or
// replacements.
type mergeWrites struct{ runs []mergeRun }

type mergeRun struct {
	action agg.MergeAction
	docs   bson.A // documents (inserts) or update statements
}

func (w *mergeWrites) add(action agg.MergeAction, doc bson.D) {
	var item any = doc
	if action == agg.MergeReplace {
		id, _ := bsonx.Get(doc, "_id")
		item = bson.D{{Key: "q", Value: bson.D{{Key: "_id", Value: id}}}, {Key: "u", Value: doc}}
	}
	if n := len(w.runs); n > 0 && w.runs[n-1].action == action {
		w.runs[n-1].docs = append(w.runs[n-1].docs, item)
		return
	}
	w.runs = append(w.runs, mergeRun{action: action, docs: bson.A{item}})
}

func (r *Router) sendMergeWrites(c *call, m *agg.MergeSpec, w mergeWrites) error {
	for _, run := range w.runs {
		cmd := bson.D{{Key: "insert", Value: m.Coll}, {Key: "documents", Value: run.docs}}
		if run.action == agg.MergeReplace {
			cmd = bson.D{{Key: "update", Value: m.Coll}, {Key: "updates", Value: run.docs}}
		}
		cmd = append(cmd, bson.E{Key: "ordered", Value: true})
		reply, err := r.subCommand(c, m.DB, withWC(c, cmd))
		if err != nil {
			return err
		}
		if err := writeReplyError(reply); err != nil {
			return err
		}
	}
	return nil
}
