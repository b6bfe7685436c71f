package oplog

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestReadRawBytes: the read stops once maxBytes is reached, returns at
// least one entry, and honours the count limit and the exclusive bound.
func TestReadRawBytes(t *testing.T) {
	f := newFixture(t, nil, 0)
	var tss []bson.Timestamp
	for i := 0; i < 5; i++ {
		b := f.eng.NewBatch()
		s := f.log.Reserve()
		e := &Entry{Op: OpNoop, NS: "", O: bson.D{{Key: "pad", Value: strings.Repeat("x", 1000)}}}
		if err := f.log.Append(b, s, e); err != nil {
			t.Fatal(err)
		}
		if _, err := f.eng.Commit(b, false); err != nil {
			t.Fatal(err)
		}
		f.log.Commit(s)
		tss = append(tss, s.TS)
	}
	tests := []struct {
		after      bson.Timestamp
		incl       bool
		limit, max int
		want       int
	}{
		{bson.Timestamp{}, true, 0, 1 << 20, 5},
		{bson.Timestamp{}, true, 0, 2500, 3}, // stops at the entry that reaches 2500 bytes
		{bson.Timestamp{}, true, 0, 1, 1},    // at least one
		{bson.Timestamp{}, true, 2, 1 << 20, 2},
		{tss[1], false, 0, 1 << 20, 3},
		{tss[1], true, 0, 1 << 20, 4},
		{tss[4], false, 0, 1 << 20, 0},
	}
	for _, tt := range tests {
		got, err := f.log.ReadRawBytes(tt.after, tt.incl, tt.limit, tt.max)
		if err != nil || len(got) != tt.want {
			t.Errorf("ReadRawBytes(%v, %v, %d, %d) = %d entries, %v; want %d", tt.after, tt.incl, tt.limit, tt.max, len(got), err, tt.want)
		}
	}
}
