package shardsvr

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/shard/key"
	"github.com/relaydb/relaydb/internal/storage"
)

// scanEngine returns an engine over an in-memory catalog holding db.c
// with the given index specs and documents.
func scanEngine(t testing.TB, specs []bson.D, docs []bson.D) (*exec.Engine, *catalog.Collection) {
	t.Helper()
	cat, err := catalog.Open(catalog.Options{Storage: storage.Options{InMemory: true}, TTLInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	e := exec.New(cat, nil)
	col, err := e.CollectionForWrite("db", "c")
	if err != nil {
		t.Fatal(err)
	}
	if len(specs) > 0 {
		if _, _, err := cat.CreateIndexes(col, specs); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < len(docs); i += 1000 {
		if res := e.Insert("db", "c", docs[i:min(i+1000, len(docs))], true, nil); len(res.Errors) > 0 {
			t.Fatal(res.Errors[0].Err)
		}
	}
	return e, col
}

func spec(name string, k bson.D, more ...bson.E) bson.D {
	return append(bson.D{{Key: "key", Value: k}, {Key: "name", Value: name}}, more...)
}

func TestRangeIndex(t *testing.T) {
	x1 := bson.D{{Key: "x", Value: 1}}
	xh := bson.D{{Key: "x", Value: "hashed"}}
	cases := []struct {
		name    string
		pattern bson.D
		specs   []bson.D
		want    string // index name, "" for none
	}{
		{"ascending", x1, []bson.D{spec("x_1", x1)}, "x_1"},
		{"prefix of a compound index", x1, []bson.D{spec("x_1_y_1", bson.D{{Key: "x", Value: 1}, {Key: "y", Value: 1}})}, "x_1_y_1"},
		{"hashed", xh, []bson.D{spec("x_1", x1), spec("x_hashed", xh)}, "x_hashed"},
		{"compound with hashed", bson.D{{Key: "a", Value: 1}, {Key: "x", Value: "hashed"}},
			[]bson.D{spec("a_1_x_hashed", bson.D{{Key: "a", Value: 1}, {Key: "x", Value: "hashed"}})}, "a_1_x_hashed"},
		{"_id", bson.D{{Key: "_id", Value: 1}}, nil, "_id_"},
		{"none", x1, nil, ""},
		{"hashed index for a range key", x1, []bson.D{spec("x_hashed", xh)}, ""},
		{"range index for a hashed key", xh, []bson.D{spec("x_1", x1)}, ""},
		{"descending", x1, []bson.D{spec("x_-1", bson.D{{Key: "x", Value: -1}})}, ""},
		{"sparse", x1, []bson.D{spec("x_1", x1, bson.E{Key: "sparse", Value: true})}, ""},
		{"partial", x1, []bson.D{spec("x_1", x1, bson.E{Key: "partialFilterExpression", Value: bson.D{{Key: "x", Value: bson.D{{Key: "$gt", Value: 0}}}}})}, ""},
		{"other field first", x1, []bson.D{spec("y_1_x_1", bson.D{{Key: "y", Value: 1}, {Key: "x", Value: 1}})}, ""},
		{"compound key, shorter index", bson.D{{Key: "x", Value: 1}, {Key: "y", Value: 1}}, []bson.D{spec("x_1", x1)}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, col := scanEngine(t, c.specs, nil)
			idx := rangeIndex(col, key.MustParse(c.pattern))
			got := ""
			if idx != nil {
				got = idx.Name
			}
			if got != c.want {
				t.Fatalf("rangeIndex: %q, want %q", got, c.want)
			}
		})
	}
}

// mixedDocs are n documents whose x, a and y cover several BSON types
// (numbers of three kinds, strings, null, missing, objects, booleans).
func mixedDocs(n int) []bson.D {
	docs := make([]bson.D, 0, n)
	for i := range n {
		d := bson.D{{Key: "_id", Value: int32(i)}, {Key: "a", Value: int32(i % 3)}}
		switch i % 7 {
		case 0:
			d = append(d, bson.E{Key: "x", Value: int32(i - n/2)})
		case 1:
			d = append(d, bson.E{Key: "x", Value: float64(i-n/2) + 0.5})
		case 2:
			d = append(d, bson.E{Key: "x", Value: int64(i - n/2)})
		case 3:
			d = append(d, bson.E{Key: "x", Value: fmt.Sprintf("s%04d", i)})
		case 4:
			d = append(d, bson.E{Key: "x", Value: nil})
		case 5: // x missing
		case 6:
			d = append(d, bson.E{Key: "x", Value: bson.D{{Key: "k", Value: int32(i)}}})
		}
		docs = append(docs, append(d, bson.E{Key: "y", Value: i%2 == 0}))
	}
	return docs
}

// TestRangeScanMatchesFullScan: for range, hashed and compound keys, the
// index scan between a range's bounds finds exactly the documents the
// full-scan fallback finds (whose shard key the range contains), reading
// no other document.
func TestRangeScanMatchesFullScan(t *testing.T) {
	k := func(kv ...any) bson.D {
		var d bson.D
		for i := 0; i < len(kv); i += 2 {
			d = append(d, bson.E{Key: kv[i].(string), Value: kv[i+1]})
		}
		return d
	}
	minK, maxK := bson.MinKey{}, bson.MaxKey{}
	cases := []struct {
		name    string
		pattern bson.D
		index   bson.D
		lo, hi  bson.D
	}{
		{"numbers", k("x", 1), k("x", 1), k("x", int32(-20)), k("x", 30.5)},
		{"across types", k("x", 1), k("x", 1), k("x", int64(100)), k("x", "s0500")},
		{"from MinKey (null and missing)", k("x", 1), k("x", 1), k("x", minK), k("x", int32(-900))},
		{"to MaxKey (objects)", k("x", 1), k("x", 1), k("x", "s0990"), k("x", maxK)},
		{"whole", k("x", 1), k("x", 1), k("x", minK), k("x", maxK)},
		{"hashed low half", k("x", "hashed"), k("x", "hashed"), k("x", minK), k("x", int64(0))},
		{"hashed middle", k("x", "hashed"), k("x", "hashed"), k("x", int64(-1)<<61), k("x", int64(1)<<61)},
		{"compound", k("a", 1, "x", 1), k("a", 1, "x", 1, "y", 1), k("a", int32(1), "x", int32(0)), k("a", int32(2), "x", minK)},
		{"compound hashed", k("a", 1, "x", "hashed"), k("a", 1, "x", "hashed"), k("a", int32(0), "x", int64(0)), k("a", int32(1), "x", int64(1)<<62)},
		{"_id", k("_id", 1), nil, k("_id", int32(100)), k("_id", int32(400))},
	}
	docs := mixedDocs(2000)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var specs []bson.D
			if c.index != nil {
				specs = []bson.D{spec("shardkey", c.index)}
			}
			e, col := scanEngine(t, specs, docs)
			p := key.MustParse(c.pattern)
			idx := rangeIndex(col, p)
			if idx == nil {
				t.Fatal("no usable index")
			}
			var viaIndex, viaScan []any
			read, err := scanRange(col, idx, c.lo, c.hi, func(d bson.D) bool {
				if inRange(p, d, c.lo, c.hi) {
					viaIndex = append(viaIndex, d[0].Value)
				}
				return true
			})
			if err != nil {
				t.Fatal(err)
			}
			st := EngineRangeStore{Eng: e}
			if err := st.scan("db", "c", func(d bson.D) bool {
				if inRange(p, d, c.lo, c.hi) {
					viaScan = append(viaScan, d[0].Value)
				}
				return true
			}); err != nil {
				t.Fatal(err)
			}
			sortIDs(viaIndex)
			sortIDs(viaScan)
			if len(viaScan) == 0 || len(viaScan) == len(docs) && c.name != "whole" {
				t.Fatalf("range holds %d of %d documents: a poor case", len(viaScan), len(docs))
			}
			if fmt.Sprint(viaIndex) != fmt.Sprint(viaScan) {
				t.Fatalf("index scan found %d documents, full scan %d:\n%v\n%v", len(viaIndex), len(viaScan), viaIndex, viaScan)
			}
			if read != len(viaScan) {
				t.Fatalf("index scan read %d documents for %d in range", read, len(viaScan))
			}
		})
	}
}

func sortIDs(ids []any) {
	slices.SortFunc(ids, func(a, b any) int { return int(a.(int32)) - int(b.(int32)) })
}

// TestDeleteBatchBounded: a batch of 3 through the index reads 3
// documents of a 20000-document collection, and batches empty the range
// (the owned documents stay); without the index the fallback finds the
// same documents.
func TestDeleteBatchBounded(t *testing.T) {
	docs := make([]bson.D, 20000)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "x", Value: int32(i)}}
	}
	p := key.MustParse(bson.D{{Key: "x", Value: 1}})
	lo, hi := bson.D{{Key: "x", Value: int32(15000)}}, bson.D{{Key: "x", Value: int32(15010)}}
	for _, withIndex := range []bool{true, false} {
		t.Run(fmt.Sprint("index ", withIndex), func(t *testing.T) {
			var specs []bson.D
			if withIndex {
				specs = []bson.D{spec("x_1", bson.D{{Key: "x", Value: 1}})}
			}
			e, col := scanEngine(t, specs, docs)
			if idx := rangeIndex(col, p); withIndex {
				read, err := scanRange(col, idx, lo, hi, func(bson.D) bool { return false })
				if err != nil || read != 1 {
					t.Fatalf("a stopped scan read %d (%v)", read, err)
				}
			} else if idx != nil {
				t.Fatalf("index %s without a shard key index", idx.Name)
			}
			st := EngineRangeStore{Eng: e}
			ctx := context.Background()
			var got []int
			for range 6 {
				n, err := st.DeleteBatch(ctx, "db.c", p, lo, hi, 3)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, n)
			}
			if fmt.Sprint(got) != "[3 3 3 1 0 0]" {
				t.Fatalf("batches deleted %v", got)
			}
			if n, err := e.Count("db", "c", nil, 0, 0, nil); err != nil || n != int64(len(docs)-10) {
				t.Fatalf("%d documents left (%v)", n, err)
			}
		})
	}
}

// BenchmarkDeleteBatch finds one batch of 100 in a 50000-document
// collection with and without the shard key index (nothing is deleted,
// so every iteration finds the same batch).
func BenchmarkDeleteBatch(b *testing.B) {
	docs := make([]bson.D, 50000)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "x", Value: int32(i)}, {Key: "pad", Value: "0123456789abcdef0123456789abcdef"}}
	}
	p := key.MustParse(bson.D{{Key: "x", Value: 1}})
	lo, hi := bson.D{{Key: "x", Value: int32(40000)}}, bson.D{{Key: "x", Value: int32(41000)}}
	for _, withIndex := range []bool{true, false} {
		b.Run(fmt.Sprint("index=", withIndex), func(b *testing.B) {
			var specs []bson.D
			if withIndex {
				specs = []bson.D{spec("x_1", bson.D{{Key: "x", Value: 1}})}
			}
			e, _ := scanEngine(b, specs, docs)
			st := EngineRangeStore{Eng: e}
			b.ResetTimer()
			for range b.N {
				n := 0
				if _, err := st.rangeDocs("db", "c", p, lo, hi, func(bson.D) bool { n++; return n < 100 }); err != nil || n != 100 {
					b.Fatalf("found %d (%v)", n, err)
				}
			}
		})
	}
}
