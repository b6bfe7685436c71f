package query

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// mustDoc parses relaxed extended JSON into a bson.D (nested documents are
// bson.D, arrays bson.A, small integers int32).
func mustDoc(t testing.TB, s string) bson.D {
	t.Helper()
	var d bson.D
	if err := bson.UnmarshalExtJSON([]byte(s), false, &d); err != nil {
		t.Fatalf("bad test JSON %s: %v", s, err)
	}
	return d
}
