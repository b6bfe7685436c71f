package query

import (
	"testing"

	"github.com/relaydb/relaydb/internal/bsonx"
	"go.mongodb.org/mongo-driver/v2/bson"
)

var fuzzSeeds = [][2]string{
	{`{"a": 1}`, `{"a": [1, 2]}`},
	{`{"a.b": {"$gt": 1, "$lt": 5}}`, `{"a": [{"b": 3}, {"b": [0, 9]}]}`},
	{`{"$or": [{"a": null}, {"b": {"$exists": false}}]}`, `{"b": 1}`},
	{`{"a": {"$elemMatch": {"b": {"$in": [1, 2]}}}}`, `{"a": [{"b": 2}]}`},
	{`{"a": {"$not": {"$regex": "^x", "$options": "i"}}}`, `{"a": "Xy"}`},
	{`{"a": {"$all": [1, 2]}, "b": {"$size": 2}}`, `{"a": [1, 2], "b": [[], {}]}`},
	{`{"a": {"$bitsAnySet": [1, 70]}, "c": {"$mod": [3, 1]}}`, `{"a": -2, "c": 4.5}`},
	{`{"a": {"$type": ["number", "array"]}}`, `{"a": {"$numberDecimal": "1"}}`},
	{`{"$expr": {"$eq": ["$a", "$b"]}}`, `{"a": 1, "b": 1.0}`},
}

// FuzzMatch compiles arbitrary BSON as a filter, projection and sort and
// applies them to arbitrary BSON documents: nothing may panic.
func FuzzMatch(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(encodeJSON(f, s[0]), encodeJSON(f, s[1]))
	}
	f.Fuzz(func(t *testing.T, filterRaw, docRaw []byte) {
		filter, err1 := bsonx.Decode(filterRaw)
		doc, err2 := bsonx.Decode(docRaw)
		if err1 != nil || err2 != nil {
			return
		}
		if m, err := Compile(filter); err == nil {
			ok, pos := m.MatchPos(doc)
			if ok != m.Match(doc) || (!ok && pos != -1) {
				t.Fatalf("Match and MatchPos disagree on %v / %v", filter, doc)
			}
		}
		if p, err := CompileProjection(filter); err == nil {
			_, _ = p.Apply(doc, 0)
		}
		if s, err := CompileSort(filter); err == nil {
			if s.Compare(doc, doc) != 0 {
				t.Fatalf("sort of %v: doc does not equal itself", doc)
			}
		}
	})
}

func encodeJSON(t testing.TB, s string) []byte {
	raw, err := bson.Marshal(mustDoc(t, s))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func BenchmarkMatchSimple(b *testing.B) {
	m, err := Compile(bson.D{{Key: "field0", Value: "x"}})
	if err != nil {
		b.Fatal(err)
	}
	doc := bson.D{}
	for i := 0; i < 10; i++ {
		doc = append(doc, bson.E{Key: "field" + string(rune('0'+i)), Value: "xxxxxxxxxx"})
	}
	doc[0].Value = "x"
	b.ReportAllocs()
	for b.Loop() {
		if !m.Match(doc) {
			b.Fatal("no match")
		}
	}
}
