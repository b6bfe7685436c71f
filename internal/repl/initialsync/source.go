package initialsync

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/oplog"
)

// secondaryOK lets a secondary sync source answer reads of user data (the
// gate of command.checkRole).
var secondaryOK = bson.E{Key: "$readPreference", Value: bson.D{{Key: "mode", Value: "secondaryPreferred"}}}

// cursor iterates a command cursor on the source (find, listCollections,
// listIndexes) with getMore.
type cursor struct {
	src   Source
	db    string
	coll  string // for getMore
	id    int64
	batch int32
	first bool
	cmd   bson.D
}

// next returns the next batch; done when the cursor is exhausted.
func (c *cursor) next(ctx context.Context) (docs bson.A, done bool, err error) {
	if !c.first {
		c.first = true
		reply, err := c.src.Run(ctx, c.db, c.cmd)
		if err != nil {
			return nil, false, fmt.Errorf("%s %s.%s: %w", c.cmd[0].Key, c.db, c.coll, err)
		}
		if c.id, docs, err = cursorReply(reply, "firstBatch"); err != nil {
			return nil, false, err
		}
		return docs, false, nil
	}
	if c.id == 0 {
		return nil, true, nil
	}
	cmd := bson.D{{Key: "getMore", Value: c.id}, {Key: "collection", Value: c.coll}}
	if c.batch > 0 {
		cmd = append(cmd, bson.E{Key: "batchSize", Value: c.batch})
	}
	reply, err := c.src.Run(ctx, c.db, append(cmd, secondaryOK))
	if err != nil {
		return nil, false, fmt.Errorf("getMore %s.%s: %w", c.db, c.coll, err)
	}
	if c.id, docs, err = cursorReply(reply, "nextBatch"); err != nil {
		return nil, false, err
	}
	return docs, false, nil
}

// all drains the cursor into documents.
func (c *cursor) all(ctx context.Context) ([]bson.D, error) {
	var out []bson.D
	for {
		docs, done, err := c.next(ctx)
		if err != nil || done {
			return out, err
		}
		for _, v := range docs {
			d, ok := v.(bson.D)
			if !ok {
				return nil, fmt.Errorf("%s: result is a %T", c.cmd[0].Key, v)
			}
			out = append(out, d)
		}
	}
}

// cursorReply extracts cursor.id and cursor.<field>.
func cursorReply(reply bson.D, field string) (int64, bson.A, error) {
	cur, _ := lookup(reply, "cursor").(bson.D)
	if cur == nil {
		return 0, nil, fmt.Errorf("reply has no cursor: %v", reply)
	}
	id, _ := lookup(cur, "id").(int64)
	docs, _ := lookup(cur, field).(bson.A)
	return id, docs, nil
}

func lookup(d bson.D, key string) any {
	for _, e := range d {
		if e.Key == key {
			return e.Value
		}
	}
	return nil
}

// oplogTop returns the source's newest oplog entry (nil if its oplog is
// empty): find on local.oplog.rs sorted {$natural: -1}, limit 1.
func oplogTop(ctx context.Context, src Source) (*oplog.Entry, error) {
	reply, err := src.Run(ctx, "local", bson.D{{Key: "find", Value: "oplog.rs"},
		{Key: "sort", Value: bson.D{{Key: "$natural", Value: int32(-1)}}},
		{Key: "limit", Value: int64(1)}, {Key: "singleBatch", Value: true}})
	if err != nil {
		return nil, fmt.Errorf("read the source's oplog top: %w", err)
	}
	_, docs, err := cursorReply(reply, "firstBatch")
	if err != nil || len(docs) == 0 {
		return nil, err
	}
	d, ok := docs[0].(bson.D)
	if !ok {
		return nil, fmt.Errorf("source oplog entry is a %T", docs[0])
	}
	return oplog.FromDoc(d)
}
