package oplog

import (
	"bytes"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestReserveAtKeepsTsAndTerm(t *testing.T) {
	f := newFixture(t, nil, 0)
	defer f.eng.Close()
	first := f.write(t, nil)
	at := bson.Timestamp{T: first.T + 50, I: 7}
	s, err := f.log.ReserveAt(at, 9)
	if err != nil {
		t.Fatal(err)
	}
	b := f.eng.NewBatch()
	e := &Entry{Op: OpNoop, NS: ""}
	if err := f.log.Append(b, s, e); err != nil {
		t.Fatal(err)
	}
	if _, err := f.eng.Commit(b, false); err != nil {
		t.Fatal(err)
	}
	f.log.Commit(s)
	if ts, term := f.log.Top(); ts != at || term != 9 || e.Term != 9 {
		t.Fatalf("top %v@%d entry term %d", ts, term, e.Term)
	}
	for _, bad := range []bson.Timestamp{at, first} {
		if _, err := f.log.ReserveAt(bad, 9); err == nil {
			t.Fatalf("ReserveAt(%v) accepted a ts not after the last", bad)
		}
	}
	f.log.SetTerm(10)
	if next := f.write(t, nil); !next.After(at) {
		t.Fatalf("allocator did not continue after %v: %v", at, next)
	}
	if _, term := f.log.Top(); term != 10 {
		t.Fatalf("term after a primary write %d", term)
	}
}

func TestTruncateAfterMovesTopBack(t *testing.T) {
	f := newFixture(t, nil, 0)
	defer f.eng.Close()
	var ts []bson.Timestamp
	for i := 0; i < 5; i++ {
		ts = append(ts, f.write(t, bson.D{{Key: "i", Value: int32(i)}}))
	}
	size := f.log.SizeBytes()
	tests := []struct {
		after bson.Timestamp
		n     int
		left  int
	}{{ts[2], 2, 3}, {ts[2], 0, 3}, {bson.Timestamp{}, 3, 0}}
	for _, tc := range tests {
		n, err := f.log.TruncateAfter(tc.after)
		if err != nil || n != tc.n {
			t.Fatalf("TruncateAfter(%v) = %d %v, want %d", tc.after, n, err, tc.n)
		}
		got, _ := f.log.Read(bson.Timestamp{}, true, 0)
		if len(got) != tc.left {
			t.Fatalf("%d entries left, want %d", len(got), tc.left)
		}
		if top, _ := f.log.Top(); top != tc.after || f.log.Visible() != tc.after {
			t.Fatalf("top %v want %v", top, tc.after)
		}
	}
	if f.log.SizeBytes() >= size || !f.log.First().IsZero() {
		t.Fatalf("size %d first %v after truncating everything", f.log.SizeBytes(), f.log.First())
	}
	if _, err := f.log.ReserveAt(ts[1], 1); err != nil {
		t.Fatalf("ReserveAt after truncation: %v", err)
	}
}

func TestUnknownFieldsRoundTrip(t *testing.T) {
	in := bson.D{{Key: "ts", Value: bson.Timestamp{T: 1, I: 2}}, {Key: "t", Value: int64(3)},
		{Key: "v", Value: int64(2)}, {Key: "op", Value: "i"}, {Key: "ns", Value: "a.b"},
		{Key: "o", Value: bson.D{{Key: "_id", Value: int32(1)}}},
		{Key: "wall", Value: bson.DateTime(5000)},
		{Key: "lsid", Value: bson.D{{Key: "id", Value: "x"}}}, {Key: "txnNumber", Value: int64(4)}}
	raw, err := bson.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	e, err := Unmarshal(raw)
	if err != nil {
		t.Fatal(err)
	}
	out, err := e.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(raw, out) {
		t.Fatalf("round trip changed the entry:\n in  %v\n out %v", bson.Raw(raw), bson.Raw(out))
	}
}
