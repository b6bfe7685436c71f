// Package cursor reads find/getMore cursors from a sync source over the
// command interface, as the fetcher, rollback and other replication code
// read a remote member's oplog and collections.
//
// Invariants:
//   - Reader.ID is the source's open cursor: 0 before the first reply and
//     once the source reports the cursor exhausted (or Kill closed it).
//   - A reply without a cursor document is an error, never an empty batch.
//   - Errors from the source are wrapped with %w, so callers can still
//     match them (and context errors) with errors.Is.
package cursor

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/oplog"
)

// Oplog namespace on every member.
const (
	OplogDB   = "local"
	OplogColl = "oplog.rs"
)

// Source runs one command against a database on the sync source.
type Source interface {
	Run(ctx context.Context, db string, cmd bson.D) (bson.D, error)
}

// Reader drives one cursor on Coll of DB: Find opens it, GetMore continues
// it, Kill closes it.
type Reader struct {
	Src  Source
	DB   string
	Coll string
	ID   int64 // open cursor; 0 before Find and once exhausted
}

// Find sends cmd (a find on r.Coll) and returns its first batch.
func (r *Reader) Find(ctx context.Context, cmd bson.D) (bson.A, error) {
	return r.run(ctx, cmd, "firstBatch")
}

// GetMore asks for the next batch; opts (batchSize, maxTimeMS) are
// appended to the getMore command.
func (r *Reader) GetMore(ctx context.Context, opts ...bson.E) (bson.A, error) {
	cmd := append(bson.D{{Key: "getMore", Value: r.ID}, {Key: "collection", Value: r.Coll}}, opts...)
	return r.run(ctx, cmd, "nextBatch")
}

func (r *Reader) run(ctx context.Context, cmd bson.D, field string) (bson.A, error) {
	reply, err := r.Src.Run(ctx, r.DB, cmd)
	if err != nil {
		return nil, err
	}
	id, docs, err := Reply(reply, field)
	if err != nil {
		return nil, err
	}
	r.ID = id
	return docs, nil
}

// Kill closes an open cursor, best effort, and forgets it.
func (r *Reader) Kill(ctx context.Context) {
	if r.ID == 0 {
		return
	}
	_, _ = r.Src.Run(ctx, r.DB, bson.D{{Key: "killCursors", Value: r.Coll},
		{Key: "cursors", Value: bson.A{r.ID}}})
	r.ID = 0
}

// FindOne runs cmd (a find that asks for a single batch) on db and returns
// the first document of its reply, nil if there is none.
func FindOne(ctx context.Context, src Source, db string, cmd bson.D) (any, error) {
	reply, err := src.Run(ctx, db, cmd)
	if err != nil {
		return nil, err
	}
	_, docs, err := Reply(reply, "firstBatch")
	if err != nil || len(docs) == 0 {
		return nil, err
	}
	return docs[0], nil
}

// OldestEntry returns the source's oldest oplog entry, nil if its oplog
// is empty.
func OldestEntry(ctx context.Context, src Source) (*oplog.Entry, error) {
	return oplogEnd(ctx, src, bson.D{{Key: "find", Value: OplogColl},
		{Key: "limit", Value: int64(1)}, {Key: "singleBatch", Value: true}})
}

// NewestEntry returns the source's newest oplog entry, nil if its oplog
// is empty.
func NewestEntry(ctx context.Context, src Source) (*oplog.Entry, error) {
	return oplogEnd(ctx, src, bson.D{{Key: "find", Value: OplogColl},
		{Key: "sort", Value: bson.D{{Key: "$natural", Value: int32(-1)}}},
		{Key: "limit", Value: int64(1)}, {Key: "singleBatch", Value: true}})
}

func oplogEnd(ctx context.Context, src Source, cmd bson.D) (*oplog.Entry, error) {
	v, err := FindOne(ctx, src, OplogDB, cmd)
	if err != nil || v == nil {
		return nil, err
	}
	return Entry(v)
}

// Reply extracts cursor.id and cursor.<field> (firstBatch or nextBatch)
// from a find or getMore reply.
func Reply(reply bson.D, field string) (int64, bson.A, error) {
	var cur bson.D
	for _, e := range reply {
		if e.Key == "cursor" {
			cur, _ = e.Value.(bson.D)
		}
	}
	if cur == nil {
		return 0, nil, fmt.Errorf("cursor: reply has no cursor: %v", reply)
	}
	var id int64
	var docs bson.A
	for _, e := range cur {
		switch e.Key {
		case "id":
			id, _ = e.Value.(int64)
		case field:
			docs, _ = e.Value.(bson.A)
		}
	}
	return id, docs, nil
}

// RawDoc is a batch element decoded (D) with the bytes it was decoded
// from (Raw), so the entry can be stored as received (oplog.Entry.Raw).
type RawDoc struct {
	D   bson.D
	Raw bson.Raw
}

// Entry decodes one batch element (a bson.D or a RawDoc) as an oplog entry.
func Entry(v any) (*oplog.Entry, error) {
	var raw bson.Raw
	if rd, ok := v.(RawDoc); ok {
		v, raw = rd.D, rd.Raw
	}
	doc, ok := v.(bson.D)
	if !ok {
		return nil, fmt.Errorf("cursor: oplog entry is a %T", v)
	}
	e, err := oplog.FromDoc(doc)
	if err != nil {
		return nil, fmt.Errorf("cursor: oplog entry: %w", err)
	}
	e.Raw = raw
	return e, nil
}

// WithRaw pairs the documents of a reply's batch (decoded from body) with
// their bytes in body; docs is returned unchanged when body does not hold
// the same batch.
func WithRaw(docs bson.A, body bson.Raw, field string) bson.A {
	arr, ok := body.Lookup("cursor", field).ArrayOK()
	if !ok {
		return docs
	}
	vals, err := arr.Values()
	if err != nil || len(vals) != len(docs) {
		return docs
	}
	out := make(bson.A, len(docs))
	for i, v := range vals {
		raw, ok := v.DocumentOK()
		d, isDoc := docs[i].(bson.D)
		if !ok || !isDoc {
			return docs
		}
		out[i] = RawDoc{D: d, Raw: raw}
	}
	return out
}
