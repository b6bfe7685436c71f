package exec

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/iterx"
)

// TestBatchOfSmallDocumentsFitsTheReply: a getMore over many small
// documents must fit MongoDB's 16 MB + 16 KB reply once encoded as the
// nextBatch array, whose keys ("0", "1", ...) and type bytes add up to
// 9 bytes per document (the soak of issue #9 saw an 18 MB reply for 400k
// documents of 37 bytes).
func TestBatchOfSmallDocumentsFitsTheReply(t *testing.T) {
	const maxReply = 16*1024*1024 + 16*1024
	doc, err := bson.Marshal(bson.D{{Key: "_id", Value: int32(1)}, {Key: "ver", Value: int64(7)}})
	if err != nil {
		t.Fatal(err)
	}
	n := maxBatchBytes/len(doc) + 1000 // more than one batch of raw bytes
	rows := make([]*Row, n)
	for i := range rows {
		rows[i] = &Row{Raw: doc, Pos: -1}
	}
	cur := NewCursor("db.c", iterx.Slice(rows))
	batch, done, err := cur.NextBatch(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if done {
		t.Fatalf("one batch returned all %d documents", n)
	}
	arr := make(bson.A, len(batch))
	for i, b := range batch {
		arr[i] = b
	}
	reply, err := bson.Marshal(bson.D{{Key: "cursor", Value: bson.D{{Key: "nextBatch", Value: arr},
		{Key: "id", Value: int64(1)}, {Key: "ns", Value: "db.c"}}}, {Key: "ok", Value: 1.0}})
	if err != nil {
		t.Fatal(err)
	}
	if len(reply) > maxReply {
		t.Fatalf("a batch of %d documents encodes to %d bytes, over the %d-byte reply limit", len(batch), len(reply), maxReply)
	}
}
