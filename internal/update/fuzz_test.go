package update

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
)

// FuzzApply decodes a document, an update and array filters from BSON and
// checks that Compile/Apply/Upsert never panic, never mutate the input,
// and that every successful Apply is reproduced idempotently by its oplog.
func FuzzApply(f *testing.F) {
	seeds := []struct{ doc, upd, filters string }{
		{`{"_id": 1, "a": [1, {"b": 2}]}`, `{"$set": {"a.1.b": 3, "c.d": 1}}`, `{"f": []}`},
		{`{"_id": 1, "a": [1, 5]}`, `{"$inc": {"a.$[x]": 1}, "$push": {"p": {"$each": [3, 1], "$sort": 1, "$slice": -1}}}`, `{"f": [{"x": {"$gt": 1}}]}`},
		{`{"_id": 1, "a": {"b": 1}}`, `{"$rename": {"a.b": "c"}, "$unset": {"z": 1}, "$bit": {"n": {"or": 3}}}`, `{"f": []}`},
		{`{"_id": 1, "a": [{"b": 1}]}`, `{"$pull": {"a": {"b": 1}}, "$addToSet": {"s": {"$each": [1, 1]}}, "$pop": {"q": 1}}`, `{"f": []}`},
		{`{"_id": 1, "a": 1}`, `{"b": 2}`, `{"f": []}`},
		{`{"_id": 1, "a": [0]}`, `{"$set": {"a.$": 2, "a.5.x": 1}, "$min": {"m": 1}, "$mul": {"k": 2}, "$currentDate": {"t": true}}`, `{"f": []}`},
	}
	for _, s := range seeds {
		f.Add(mustEncode(f, D(f, s.doc)), mustEncode(f, D(f, s.upd)), mustEncode(f, D(f, s.filters)), int8(0), true)
	}
	f.Fuzz(func(t *testing.T, rawDoc, rawUpd, rawFilters []byte, pos int8, insert bool) {
		doc, err1 := bsonx.Decode(rawDoc)
		upd, err2 := bsonx.Decode(rawUpd)
		fdoc, err3 := bsonx.Decode(rawFilters)
		if err1 != nil || err2 != nil || err3 != nil {
			return
		}
		u, err := Compile(upd, Options{ArrayFilters: filterList(fdoc)})
		if err != nil {
			return
		}
		before := bsonx.CloneDoc(doc)
		res, err := u.Apply(doc, ApplyContext{MatchedPos: int(pos), IsInsert: insert})
		if !identical(doc, before) {
			t.Fatalf("input mutated")
		}
		if err == nil {
			checkIdempotent(t, doc, res)
		}
		_, _ = u.Upsert(doc, ApplyContext{MatchedPos: -1})
	})
}

func filterList(d bson.D) []bson.D {
	var out []bson.D
	if a, ok := bsonx.Get(d, "f"); ok {
		arr, _ := a.(bson.A)
		for _, v := range arr {
			if fd, ok := v.(bson.D); ok {
				out = append(out, fd)
			}
		}
	}
	return out
}

func mustEncode(t testing.TB, d bson.D) []byte {
	b, err := bsonx.Encode(d)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
