package oplog

import (
	"bytes"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/storage"
)

// TestAppendStoresRaw: an entry carrying the bytes its source sent is
// stored as those bytes when they name the slot's ts and term, and
// encoded afresh otherwise.
func TestAppendStoresRaw(t *testing.T) {
	f := newFixture(t, nil, 0)
	defer f.eng.Close()
	// "v" as an int32: Marshal writes an int64, so only the source's bytes
	// stored as they are compare equal to raw.
	raw, err := bson.Marshal(bson.D{{Key: "ts", Value: bson.Timestamp{T: 2000, I: 1}}, {Key: "t", Value: int64(3)},
		{Key: "v", Value: int32(2)}, {Key: "op", Value: OpInsert}, {Key: "ns", Value: "db.c"},
		{Key: "o", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "wall", Value: bson.DateTime(2_000_000)}})
	if err != nil {
		t.Fatal(err)
	}
	src := bson.Timestamp{T: 2000, I: 1}
	for _, tc := range []struct {
		name  string
		ts    bson.Timestamp
		term  int64
		asRaw bool
	}{
		{"same ts and term", src, 3, true},
		{"another term", bson.Timestamp{T: 2000, I: 2}, 4, false},
		{"another ts", bson.Timestamp{T: 2000, I: 3}, 3, false},
	} {
		e, err := Unmarshal(raw)
		if err != nil {
			t.Fatal(err)
		}
		e.Raw = raw
		e.TS, e.Term = tc.ts, tc.term
		s, err := f.log.ReserveAt(tc.ts, tc.term)
		if err != nil {
			t.Fatal(err)
		}
		b := f.eng.NewBatch()
		if err := f.log.Append(b, s, e); err != nil {
			t.Fatal(err)
		}
		if _, err := f.eng.Commit(b, false); err != nil {
			t.Fatal(err)
		}
		f.log.Commit(s)
		got, ok, err := f.eng.Get(storage.OplogKey(tc.ts))
		if err != nil || !ok {
			t.Fatalf("%s: entry not stored: %v", tc.name, err)
		}
		if bytes.Equal(got, raw) != tc.asRaw {
			t.Errorf("%s: stored the source's bytes = %v, want %v", tc.name, bytes.Equal(got, raw), tc.asRaw)
		}
		back, err := Unmarshal(got)
		if err != nil || back.TS != tc.ts || back.Term != tc.term {
			t.Errorf("%s: stored entry reads back as ts %v term %d (%v)", tc.name, back.TS, back.Term, err)
		}
	}
}
