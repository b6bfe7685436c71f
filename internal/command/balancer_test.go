package command

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/shard/key"
)

func TestSplitScan(t *testing.T) {
	p, err := key.Parse(bson.D{{Key: "x", Value: int32(1)}})
	if err != nil {
		t.Fatal(err)
	}
	x := func(v int64) bson.D { return bson.D{{Key: "x", Value: v}} }
	docs := func(vs ...int64) []bson.D {
		out := make([]bson.D, len(vs))
		for i, v := range vs {
			out[i] = bson.D{{Key: "_id", Value: i}, {Key: "x", Value: v}}
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		lo, hi  bson.D
		maxDocs int64
		limit   int
		docs    []bson.D
		want    string
	}{
		{name: "every 2 documents", lo: p.GlobalMin(), hi: p.GlobalMax(), maxDocs: 2, docs: docs(1, 2, 3, 4, 5), want: "[{x 3}] [{x 5}]"},
		{name: "smaller than the size: none", lo: p.GlobalMin(), hi: p.GlobalMax(), maxDocs: 5, docs: docs(1, 2, 3, 4, 5), want: ""},
		{name: "one key's documents stay together", lo: p.GlobalMin(), hi: p.GlobalMax(), maxDocs: 2, docs: docs(1, 1, 1, 1, 2, 3), want: "[{x 2}]"},
		{name: "one key only: none", lo: p.GlobalMin(), hi: p.GlobalMax(), maxDocs: 1, docs: docs(7, 7, 7), want: ""},
		{name: "limit", lo: p.GlobalMin(), hi: p.GlobalMax(), maxDocs: 1, limit: 2, docs: docs(1, 2, 3, 4, 5), want: "[{x 2}] [{x 3}]"},
		{name: "documents outside [lo, hi) are not counted", lo: x(2), hi: x(5), maxDocs: 1, docs: docs(0, 1, 2, 3, 4, 5, 6), want: "[{x 3}] [{x 4}]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := splitScan{p: p, lo: tc.lo, hi: tc.hi, maxDocs: tc.maxDocs, limit: tc.limit, keys: bson.A{}}
			s.add(tc.docs)
			got := ""
			for i, k := range s.keys {
				if i > 0 {
					got += " "
				}
				got += bsonString(k)
			}
			if got != tc.want {
				t.Fatalf("keys %s, want %s", got, tc.want)
			}
		})
	}
}

func bsonString(v any) string {
	d := v.(bson.D)
	out := "["
	for _, e := range d {
		out += "{" + e.Key + " " + key.FormatValue(e.Value) + "}"
	}
	return out + "]"
}

func TestLoadSampler(t *testing.T) {
	now := time.Unix(1000, 0)
	l := NewLoadSampler(func() time.Duration { return 10 * time.Second })
	l.now = func() time.Time { return now }
	if ops, k := l.Report("db.c"); ops != 0 || k != nil {
		t.Fatalf("before any operation: %v %v", ops, k)
	}
	for i := range 3000 {
		l.Record("db.c", 1, bson.D{{Key: "x", Value: int64(i % 100)}})
	}
	if ops, _ := l.Report("db.c"); ops != 0 {
		t.Fatalf("the first window is not over yet, got %v ops/s", ops)
	}
	now = now.Add(10 * time.Second)
	ops, k := l.Report("db.c")
	if ops != 300 || k == nil {
		t.Fatalf("after a window of 3000 operations over 100 keys: %v ops/s, key %v", ops, k)
	}
	now = now.Add(25 * time.Second)
	if ops, k := l.Report("db.c"); ops != 0 || k != nil {
		t.Fatalf("after a quiet window: %v %v", ops, k)
	}
}

func TestStatementKeys(t *testing.T) {
	p, err := key.Parse(bson.D{{Key: "x", Value: int32(1)}})
	if err != nil {
		t.Fatal(err)
	}
	x := func(v int32) bson.D { return bson.D{{Key: "x", Value: v}} }
	many := bson.A{}
	for i := range 40 {
		many = append(many, bson.D{{Key: "_id", Value: i}, {Key: "x", Value: int32(i)}})
	}
	for _, tc := range []struct {
		name  string
		cmd   bson.D
		n     int64
		nKeys int
	}{
		{"insert: every document counted, the first 4 sampled", bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: many}}, 40, 4},
		{"update by key", bson.D{{Key: "update", Value: "c"}, {Key: "updates", Value: bson.A{bson.D{{Key: "q", Value: x(1)}}, bson.D{{Key: "q", Value: bson.D{}}}}}}, 2, 1},
		{"delete by key", bson.D{{Key: "delete", Value: "c"}, {Key: "deletes", Value: bson.A{bson.D{{Key: "q", Value: x(1)}}}}}, 1, 1},
		{"find by key", bson.D{{Key: "find", Value: "c"}, {Key: "filter", Value: x(3)}}, 1, 1},
		{"find by range: counted, no key", bson.D{{Key: "find", Value: "c"}, {Key: "filter", Value: bson.D{{Key: "x", Value: bson.D{{Key: "$gt", Value: 1}}}}}}, 1, 0},
		{"aggregate: counted, no key", bson.D{{Key: "aggregate", Value: "c"}, {Key: "pipeline", Value: bson.A{}}}, 1, 0},
	} {
		name := tc.cmd[0].Key
		if n, keys := statementKeys(p, name, tc.cmd); n != tc.n || len(keys) != tc.nKeys {
			t.Errorf("%s: %d statements, %d keys; want %d, %d", tc.name, n, len(keys), tc.n, tc.nKeys)
		}
	}
}

// BenchmarkLoadSample is the shard's per-command cost of load sampling
// (the metadata lookup aside): a find by key's statement keys and Record.
func BenchmarkLoadSample(b *testing.B) {
	p, _ := key.Parse(bson.D{{Key: "x", Value: int32(1)}})
	l := NewLoadSampler(func() time.Duration { return 10 * time.Second })
	cmd := bson.D{{Key: "find", Value: "c"}, {Key: "filter", Value: bson.D{{Key: "x", Value: int32(42)}}}}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			n, keys := statementKeys(p, "find", cmd)
			l.Record("db.c", n, keys...)
		}
	})
}
