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

// TestApplyCollModIndex: a primary's collMod of index options (hidden,
// expireAfterSeconds) reaches the secondary's index, and a collMod naming
// an index the secondary lacks is skipped rather than failing.
func TestApplyCollModIndex(t *testing.T) {
	p := openMem(t)
	coll, err := p.CreateCollection("app", "i", nil)
	must(t, err)
	specs := []bson.D{
		{{Key: "key", Value: bson.D{{Key: "a", Value: 1}}}, {Key: "name", Value: "a_1"}},
		{{Key: "key", Value: bson.D{{Key: "t", Value: 1}}}, {Key: "name", Value: "t_1"}, {Key: "expireAfterSeconds", Value: 60}},
	}
	_, _, err = p.CreateIndexes(coll, specs)
	must(t, err)
	_, _, err = p.CollModIndex("app", "i", bson.D{{Key: "index", Value: bson.D{{Key: "name", Value: "a_1"}, {Key: "hidden", Value: true}}}})
	must(t, err)
	_, _, err = p.CollModIndex("app", "i", bson.D{{Key: "index", Value: bson.D{{Key: "name", Value: "t_1"}, {Key: "expireAfterSeconds", Value: 5}}}})
	must(t, err)
	s := openMem(t)
	must(t, applyBatch(s, entriesOf(t, p)))
	mustSameState(t, p, s)
	got := s.Collection("app", "i")
	if idx := got.Index("a_1"); idx == nil || !idx.Hidden {
		t.Fatalf("a_1 on the secondary = %v, want hidden", idx)
	}
	if idx := got.Index("t_1"); idx == nil || idx.ExpireAfterSeconds == nil || *idx.ExpireAfterSeconds != 5 {
		t.Fatalf("t_1 on the secondary = %v, want expireAfterSeconds 5", idx)
	}
	if len(got.VisibleIndexes()) != 2 {
		t.Fatalf("visible indexes = %d, want 2", len(got.VisibleIndexes()))
	}
}
