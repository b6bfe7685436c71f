package routing

import (
	"slices"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/query"
)

// fuzzManagers are routing tables over range, compound and hashed keys.
func fuzzManagers(t testing.TB) []*ChunkManager {
	build := func(pattern, table string) *ChunkManager {
		coll := testCollection(t, pattern)
		m, err := New(coll, chunksFromTable(t, coll.Key, table))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	hashedColl := testCollection(t, `{"a":"hashed"}`)
	hashedChunks, _ := InitialChunks(hashedColl, InitialSplit{Primary: "s0", Shards: []string{"s0", "s1", "s2"}})
	hashed, err := New(hashedColl, hashedChunks)
	if err != nil {
		t.Fatal(err)
	}
	return []*ChunkManager{
		build(`{"a":1}`, "s0: MinKey\ns5: {\"a\":null}\ns1: {\"a\":0}\ns2: {\"a\":10}\ns3: {\"a\":\"m\"}\ns4: {\"a\":{}}"),
		build(`{"a":1,"b.c":1}`, "s0: MinKey\ns1: {\"a\":0,\"b.c\":{\"$minKey\":1}}\ns2: {\"a\":0,\"b.c\":5}\ns3: {\"a\":1,\"b.c\":{\"$minKey\":1}}"),
		hashed,
		build(`{"a":1,"b.c":"hashed"}`, "s0: MinKey\ns1: {\"a\":0,\"b.c\":{\"$minKey\":1}}\ns2: {\"a\":0,\"b.c\":0}\ns3: {\"a\":\"m\",\"b.c\":{\"$minKey\":1}}"),
	}
}

func fuzzSeedFilter(f *testing.F, filter string) {
	raw, err := bsonx.Encode(parseDoc(f, filter))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(raw)
}

// FuzzTarget: Target never panics, and whenever the filter compiles, every
// candidate document (built from the filter's own values) that matches it
// lives on a shard Target returned.
func FuzzTarget(f *testing.F) {
	for _, s := range []string{
		`{"a":5}`, `{"a":{"$in":[0,"m",null]}}`, `{"a":{"$gt":0,"$lte":10}}`,
		`{"a":0,"b":{"c":5}}`, `{"a":0,"b.c":{"$gte":5}}`, `{"$and":[{"a":{"$lt":"z"}},{"a":{"$gt":"a"}}]}`,
		`{"$or":[{"a":-1}]}`, `{"a":{"$eq":{"x":1}}}`, `{"a":{"$gte":1.5,"$lte":1.5}}`,
	} {
		fuzzSeedFilter(f, s)
	}
	managers := fuzzManagers(f)
	f.Fuzz(func(t *testing.T, raw []byte) {
		filter, err := bsonx.Decode(raw)
		if err != nil {
			return
		}
		matcher, err := query.Compile(filter)
		for _, m := range managers {
			shards, _ := m.Target(filter)
			if err == nil {
				checkSound(t, m, filter, matcher, shards)
			}
		}
	})
}

func checkSound(t *testing.T, m *ChunkManager, filter bson.D, matcher *query.Matcher, shards []string) {
	for _, doc := range candidates(m, filter) {
		if !matcher.Match(doc) {
			continue
		}
		shard, err := m.ShardFor(doc)
		if err == nil && !slices.Contains(shards, shard) {
			t.Fatalf("filter %v matches %v on %s, but Target returned %v", filter, doc, shard, shards)
		}
	}
}

// candidates builds documents from the filter's values: {a: v} and, for
// the compound key, {a: v, b: {c: w}}.
func candidates(m *ChunkManager, filter bson.D) []bson.D {
	vals := append(collect(filter, nil), nil, int32(0), 1.5, "m", bson.D{})
	if len(vals) > 12 {
		vals = vals[:12]
	}
	docs := []bson.D{{}}
	for _, v := range vals {
		docs = append(docs, bson.D{{Key: "a", Value: v}})
		if m.Pattern().Len() == 2 {
			for _, w := range vals {
				docs = append(docs, bson.D{{Key: "a", Value: v}, {Key: "b", Value: bson.D{{Key: "c", Value: w}}}})
			}
		}
	}
	return docs
}

// collect gathers the non-array values anywhere in v.
func collect(v any, out []any) []any {
	switch x := v.(type) {
	case bson.D:
		out = append(out, x)
		for _, e := range x {
			out = collect(e.Value, out)
		}
	case bson.A:
		for _, e := range x {
			out = collect(e, out)
		}
	default:
		out = append(out, x)
	}
	return out
}
