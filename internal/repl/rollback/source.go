package rollback

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/repl/topology"
)

const (
	oplogDB   = "local"
	oplogColl = "oplog.rs"
	// batchSize bounds each find/getMore on the source.
	batchSize = int32(500)
)

// secondaryPreferred lets a secondary source answer reads of user
// collections (the gate of command.checkRole).
var secondaryPreferred = bson.D{{Key: "mode", Value: "secondaryPreferred"}}

// remoteOplog walks the source's oplog newest first from a timestamp, with
// find {ts: {$lte: T}} sort {$natural: -1} and getMore.
type remoteOplog struct {
	src  Source
	from bson.Timestamp
	id   int64 // open cursor; 0 once exhausted
	buf  bson.A
	open bool // find sent
}

// next returns the next (older) entry, nil at the start of the oplog.
func (r *remoteOplog) next(ctx context.Context) (*oplog.Entry, error) {
	for len(r.buf) == 0 {
		if r.open && r.id == 0 {
			return nil, nil
		}
		if err := r.fetch(ctx); err != nil {
			return nil, err
		}
	}
	v := r.buf[0]
	r.buf = r.buf[1:]
	doc, ok := v.(bson.D)
	if !ok {
		return nil, fmt.Errorf("rollback: source oplog entry is a %T", v)
	}
	e, err := oplog.FromDoc(doc)
	if err != nil {
		return nil, fmt.Errorf("rollback: source oplog entry: %w", err)
	}
	return e, nil
}

// fetch runs the find, or a getMore on its cursor.
func (r *remoteOplog) fetch(ctx context.Context) error {
	cmd := bson.D{{Key: "getMore", Value: r.id}, {Key: "collection", Value: oplogColl},
		{Key: "batchSize", Value: batchSize}}
	field := "nextBatch"
	if !r.open {
		cmd = bson.D{{Key: "find", Value: oplogColl},
			{Key: "filter", Value: bson.D{{Key: "ts", Value: bson.D{{Key: "$lte", Value: r.from}}}}},
			{Key: "sort", Value: bson.D{{Key: "$natural", Value: int32(-1)}}},
			{Key: "batchSize", Value: batchSize}}
		field = "firstBatch"
	}
	reply, err := r.src.Run(ctx, oplogDB, cmd)
	if err != nil {
		return fmt.Errorf("rollback: read the source's oplog: %w", err)
	}
	r.open = true
	if r.id, r.buf, err = cursorReply(reply, field); err != nil {
		return err
	}
	return nil
}

// close kills an unfinished cursor, best effort.
func (r *remoteOplog) close(ctx context.Context) {
	if r.id != 0 {
		_, _ = r.src.Run(ctx, oplogDB, bson.D{{Key: "killCursors", Value: oplogColl},
			{Key: "cursors", Value: bson.A{r.id}}})
		r.id = 0
	}
}

// sourceTop returns the source's newest oplog entry's OpTime.
func sourceTop(ctx context.Context, src Source) (topology.OpTime, error) {
	reply, err := src.Run(ctx, oplogDB, bson.D{{Key: "find", Value: oplogColl},
		{Key: "sort", Value: bson.D{{Key: "$natural", Value: int32(-1)}}},
		{Key: "limit", Value: int64(1)}, {Key: "singleBatch", Value: true}})
	if err != nil {
		return topology.OpTime{}, fmt.Errorf("rollback: read the source's newest entry: %w", err)
	}
	_, docs, err := cursorReply(reply, "firstBatch")
	if err != nil || len(docs) == 0 {
		return topology.OpTime{}, err
	}
	doc, _ := docs[0].(bson.D)
	e, err := oplog.FromDoc(doc)
	if err != nil {
		return topology.OpTime{}, fmt.Errorf("rollback: source's newest entry: %w", err)
	}
	return topology.OpTime{TS: e.TS, Term: e.Term}, nil
}

// refetch returns the source's current version of db.coll's document
// with _id id, nil if it has none.
func refetch(ctx context.Context, src Source, db, coll string, id any) (bson.D, error) {
	reply, err := src.Run(ctx, db, bson.D{{Key: "find", Value: coll},
		{Key: "filter", Value: bson.D{{Key: "_id", Value: bson.D{{Key: "$eq", Value: id}}}}},
		{Key: "limit", Value: int64(1)}, {Key: "singleBatch", Value: true},
		{Key: "$readPreference", Value: secondaryPreferred}})
	if err != nil {
		return nil, fmt.Errorf("rollback: refetch %s.%s _id %v: %w", db, coll, id, err)
	}
	_, docs, err := cursorReply(reply, "firstBatch")
	if err != nil || len(docs) == 0 {
		return nil, err
	}
	doc, ok := docs[0].(bson.D)
	if !ok {
		return nil, fmt.Errorf("rollback: refetch %s.%s _id %v: got a %T", db, coll, id, docs[0])
	}
	return doc, nil
}

// cursorReply extracts cursor.id and cursor.<field> from a find/getMore
// reply, or the command's error.
func cursorReply(reply bson.D, field string) (int64, bson.A, error) {
	var cur bson.D
	for _, e := range reply {
		if e.Key == "cursor" {
			cur, _ = e.Value.(bson.D)
		}
	}
	if cur == nil {
		return 0, nil, fmt.Errorf("rollback: reply has no cursor: %v", reply)
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
