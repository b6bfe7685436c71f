package exec

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// executionStats count what the plan read: an index scan reads only the
// matching keys and documents, a collection scan every document.
func TestExplainFindStats(t *testing.T) {
	var docs []bson.D
	for i := range 20 {
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "a", Value: i % 4}, {Key: "z", Value: i}})
	}
	e := testEngine(t, docs)
	for _, tc := range []struct {
		name           string
		p              FindParams
		n, keys, exam  int64
		leaf, leafStat string
	}{
		{"ixscan", FindParams{Filter: bson.D{{Key: "a", Value: 1}}}, 5, 5, 5, "IXSCAN", "keysExamined"},
		{"ixscan limit", FindParams{Filter: bson.D{{Key: "a", Value: 1}}, Limit: 2}, 2, 2, 2, "IXSCAN", "keysExamined"},
		{"collscan", FindParams{Filter: bson.D{{Key: "z", Value: bson.D{{Key: "$lt", Value: 3}}}}}, 3, 0, 20, "COLLSCAN", "docsExamined"},
		{"idhack", FindParams{Filter: bson.D{{Key: "_id", Value: 7}}}, 1, 1, 1, "IDHACK", "docsExamined"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, st, err := e.ExplainFindStats("t", "c", tc.p)
			if err != nil {
				t.Fatal(err)
			}
			if lookupD(st, "nReturned") != tc.n || lookupD(st, "totalKeysExamined") != tc.keys || lookupD(st, "totalDocsExamined") != tc.exam {
				t.Fatalf("stats %v, want n %d keys %d docs %d", st, tc.n, tc.keys, tc.exam)
			}
			stage, _ := lookupD(st, "executionStages").(bson.D)
			if lookupD(stage, "nReturned") != tc.n {
				t.Fatalf("root stage %v", stage)
			}
			for lookupD(stage, "inputStage") != nil {
				stage = lookupD(stage, "inputStage").(bson.D)
			}
			if lookupD(stage, "stage") != tc.leaf || lookupD(stage, tc.leafStat) == nil {
				t.Fatalf("leaf stage %v, want %s with %s", stage, tc.leaf, tc.leafStat)
			}
		})
	}
}
