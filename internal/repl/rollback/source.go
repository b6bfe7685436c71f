package rollback

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/repl/cursor"
	"github.com/relaydb/relaydb/internal/repl/topology"
)

// batchSize bounds each find/getMore on the source.
const batchSize = int32(500)

// secondaryPreferred lets a secondary source answer reads of user
// collections (the gate of command.checkRole).
var secondaryPreferred = bson.D{{Key: "mode", Value: "secondaryPreferred"}}

// remoteOplog walks the source's oplog newest first from a timestamp, with
// find {ts: {$lte: T}} sort {$natural: -1} and getMore.
type remoteOplog struct {
	cur  cursor.Reader
	from bson.Timestamp
	buf  bson.A
	open bool // find sent
}

func newRemoteOplog(src Source, from bson.Timestamp) *remoteOplog {
	return &remoteOplog{cur: cursor.Reader{Src: src, DB: cursor.OplogDB, Coll: cursor.OplogColl}, from: from}
}

// next returns the next (older) entry, nil at the start of the oplog.
func (r *remoteOplog) next(ctx context.Context) (*oplog.Entry, error) {
	for len(r.buf) == 0 {
		if r.open && r.cur.ID == 0 {
			return nil, nil
		}
		if err := r.fetch(ctx); err != nil {
			return nil, err
		}
	}
	v := r.buf[0]
	r.buf = r.buf[1:]
	e, err := cursor.Entry(v)
	if err != nil {
		return nil, fmt.Errorf("rollback: source oplog: %w", err)
	}
	return e, nil
}

// fetch runs the find, or a getMore on its cursor.
func (r *remoteOplog) fetch(ctx context.Context) error {
	var err error
	if r.open {
		r.buf, err = r.cur.GetMore(ctx, bson.E{Key: "batchSize", Value: batchSize})
	} else {
		r.buf, err = r.cur.Find(ctx, bson.D{{Key: "find", Value: cursor.OplogColl},
			{Key: "filter", Value: bson.D{{Key: "ts", Value: bson.D{{Key: "$lte", Value: r.from}}}}},
			{Key: "sort", Value: bson.D{{Key: "$natural", Value: int32(-1)}}},
			{Key: "batchSize", Value: batchSize}})
	}
	if err != nil {
		return fmt.Errorf("rollback: read the source's oplog: %w", err)
	}
	r.open = true
	return nil
}

// close kills an unfinished cursor, best effort.
func (r *remoteOplog) close(ctx context.Context) { r.cur.Kill(ctx) }

// sourceTop returns the source's newest oplog entry's OpTime.
func sourceTop(ctx context.Context, src Source) (topology.OpTime, error) {
	e, err := cursor.NewestEntry(ctx, src)
	if err != nil {
		return topology.OpTime{}, fmt.Errorf("rollback: read the source's newest entry: %w", err)
	}
	if e == nil {
		return topology.OpTime{}, nil
	}
	return topology.OpTime{TS: e.TS, Term: e.Term}, nil
}

// refetch returns the source's current version of db.coll's document
// with _id id, nil if it has none.
func refetch(ctx context.Context, src Source, db, coll string, id any) (bson.D, error) {
	v, err := cursor.FindOne(ctx, src, db, bson.D{{Key: "find", Value: coll},
		{Key: "filter", Value: bson.D{{Key: "_id", Value: bson.D{{Key: "$eq", Value: id}}}}},
		{Key: "limit", Value: int64(1)}, {Key: "singleBatch", Value: true},
		{Key: "$readPreference", Value: secondaryPreferred}})
	if err != nil {
		return nil, fmt.Errorf("rollback: refetch %s.%s _id %v: %w", db, coll, id, err)
	}
	if v == nil {
		return nil, nil
	}
	doc, ok := v.(bson.D)
	if !ok {
		return nil, fmt.Errorf("rollback: refetch %s.%s _id %v: got a %T", db, coll, id, v)
	}
	return doc, nil
}
