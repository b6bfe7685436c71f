package applier

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestApplyCollModReproducesOptions: a primary's collMod (validator and
// validation level) reaches the secondary's catalog, and the secondary
// applies a document the validator would refuse (it never validates).
func TestApplyCollModReproducesOptions(t *testing.T) {
	p := openMem(t)
	validator := bson.D{{Key: "a", Value: bson.D{{Key: "$type", Value: "int"}}}}
	_, err := p.CreateCollection("app", "v", bson.D{{Key: "validator", Value: validator}})
	must(t, err)
	_, err = p.CollMod("app", "v", bson.D{{Key: "validationLevel", Value: "moderate"}, {Key: "validator", Value: bson.D{}}})
	must(t, err)
	mustInsert(t, p, p.Collection("app", "v"), bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: "not an int"}})
	s := openMem(t)
	must(t, applyBatch(s, entriesOf(t, p)))
	mustSameState(t, p, s)
	got := s.Collection("app", "v").Options
	want := bson.D{{Key: "validator", Value: bson.D{}}, {Key: "validationLevel", Value: "moderate"}}
	if x, y := mustExt(t, got), mustExt(t, want); x != y {
		t.Fatalf("options = %s, want %s", x, y)
	}
}

func mustExt(t *testing.T, d bson.D) string {
	b, err := bson.MarshalExtJSON(d, true, false)
	must(t, err)
	return string(b)
}
