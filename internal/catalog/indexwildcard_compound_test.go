package catalog

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

func TestCompoundWildcardSpecs(t *testing.T) {
	tests := []struct {
		name string
		spec bson.D
		code mongoerr.Code
	}{
		{"path term", spec("w", d("a", 1, "p.$**", 1)), 0},
		{"$** with projection", spec("w", d("$**", 1, "a", -1), "wildcardProjection", d("a", 0)), 0},
		{"$** with inclusion leaving a out", spec("w", d("a", 1, "$**", 1), "wildcardProjection", d("x", 1)), 0},
		{"$** without projection", spec("w", d("$**", 1, "a", 1)), mongoerr.CannotCreateIndex},
		{"$** projecting a in", spec("w", d("$**", 1, "a", 1), "wildcardProjection", d("a", 1)), mongoerr.CannotCreateIndex},
		{"two wildcard terms", spec("w", d("p.$**", 1, "q.$**", 1)), mongoerr.CannotCreateIndex},
		{"regular under the term", spec("w", d("p.$**", 1, "p.x", 1)), mongoerr.CannotCreateIndex},
		{"hashed term", spec("w", d("p.$**", 1, "a", "hashed")), mongoerr.CannotCreateIndex},
		{"unique", spec("w", d("p.$**", 1, "a", 1), "unique", true), mongoerr.CannotCreateIndex},
		{"projection on a path term", spec("w", d("p.$**", 1, "a", 1), "wildcardProjection", d("x", 1)), mongoerr.FailedToParse},
	}
	for _, tc := range tests {
		_, err := parseSpec(tc.spec)
		if (tc.code == 0 && err != nil) || (tc.code != 0 && !mongoerr.Is(err, tc.code)) {
			t.Errorf("%s: %v, want code %d", tc.name, err, tc.code)
		}
	}
}

// TestCompoundWildcardKeys: one entry per (regular values, wildcard
// path/value); a document without wildcard values still has one; an
// array in a regular field is refused.
func TestCompoundWildcardKeys(t *testing.T) {
	idx, err := parseSpec(spec("w", d("a", 1, "p.$**", 1)))
	if err != nil {
		t.Fatal(err)
	}
	keys, multi, err := indexKeys(idx, d("a", 1, "p", d("x", 1, "y", bson.A{2, 3})))
	if err != nil || len(keys) != 3 || !multi {
		t.Fatalf("keys %d multikey %v err %v, want 3 multikey", len(keys), multi, err)
	}
	if keys, _, err = indexKeys(idx, d("a", 1)); err != nil || len(keys) != 1 {
		t.Fatalf("without wildcard values: %d keys, %v", len(keys), err)
	}
	if _, _, err = indexKeys(idx, d("a", bson.A{1, 2}, "p", d("x", 1))); !mongoerr.Is(err, mongoerr.BadValue) {
		t.Fatalf("array in a regular field: %v", err)
	}
	// a descending term's placeholder decodes through the planner's view
	desc, err := parseSpec(spec("w", d("p.$**", -1, "b", 1)))
	if err != nil {
		t.Fatal(err)
	}
	keys, _, err = indexKeys(desc, d("b", 1))
	if err != nil || len(keys) != 1 {
		t.Fatalf("descending placeholder: %d keys, %v", len(keys), err)
	}
	if _, err := keyValueDoc(desc.CompoundWildcardField(""), keys[0]); err != nil {
		t.Fatalf("descending placeholder does not decode: %v", err)
	}
}
