package cursor

import (
	"bytes"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
)

// TestWithRawPairsBatchBytes: each batch element gets the bytes it was
// decoded from, and the entry decoded from it carries them; a body that
// does not hold the same batch leaves the documents as they were.
func TestWithRawPairsBatchBytes(t *testing.T) {
	e1 := bson.D{{Key: "ts", Value: bson.Timestamp{T: 5, I: 1}}, {Key: "t", Value: int64(1)}, {Key: "op", Value: "n"},
		{Key: "ns", Value: ""}, {Key: "o", Value: bson.D{{Key: "msg", Value: "a"}}}}
	e2 := bson.D{{Key: "ts", Value: bson.Timestamp{T: 5, I: 2}}, {Key: "t", Value: int64(1)}, {Key: "op", Value: "n"},
		{Key: "ns", Value: ""}, {Key: "o", Value: bson.D{{Key: "msg", Value: "bb"}}}}
	body, err := bson.Marshal(bson.D{{Key: "cursor", Value: bson.D{{Key: "id", Value: int64(9)},
		{Key: "ns", Value: "local.oplog.rs"}, {Key: "nextBatch", Value: bson.A{e1, e2}}}}, {Key: "ok", Value: 1.0}})
	if err != nil {
		t.Fatal(err)
	}
	reply, err := bsonx.Decode(body)
	if err != nil {
		t.Fatal(err)
	}
	_, docs, err := Reply(reply, "nextBatch")
	if err != nil {
		t.Fatal(err)
	}
	paired := WithRaw(docs, body, "nextBatch")
	for i, want := range []bson.D{e1, e2} {
		wantRaw, _ := bson.Marshal(want)
		e, err := Entry(paired[i])
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(e.Raw, wantRaw) {
			t.Errorf("entry %d: Raw is not the element's bytes", i)
		}
		if e.TS != want[0].Value.(bson.Timestamp) {
			t.Errorf("entry %d: ts %v", i, e.TS)
		}
	}
	if got := WithRaw(docs[:1], body, "nextBatch"); len(got) != 1 {
		t.Fatalf("a mismatched batch changed length: %d", len(got))
	} else if _, ok := got[0].(bson.D); !ok {
		t.Errorf("a mismatched batch was paired: %T", got[0])
	}
}
