package key

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestCompare(t *testing.T) {
	k := func(vs ...any) bson.D {
		d := bson.D{}
		for i, v := range vs {
			d = append(d, bson.E{Key: string(rune('a' + i)), Value: v})
		}
		return d
	}
	// Each key sorts strictly before the next.
	ordered := []bson.D{
		k(bson.MinKey{}),
		k(nil),
		k(-1.5),
		k(int32(0), bson.MinKey{}),
		k(int64(0), int32(5)),
		k(0.5),
		k(int64(1)),
		k("a"),
		k("b", bson.MinKey{}),
		k("b", bson.MaxKey{}),
		k(bson.D{}),
		k(bson.ObjectID{}),
		k(false),
		k(true),
		k(bson.DateTime(0)),
		k(bson.Timestamp{}),
		k(bson.MaxKey{}),
	}
	for i := range ordered {
		for j := range ordered {
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := Compare(ordered[i], ordered[j]); got != want {
				t.Errorf("Compare(%s, %s) = %d, want %d", Format(ordered[i]), Format(ordered[j]), got, want)
			}
		}
	}
	// Field names do not matter; numeric types do not either.
	if Compare(bson.D{{Key: "x", Value: int32(1)}}, bson.D{{Key: "y", Value: 1.0}}) != 0 {
		t.Error("keys differing only in names and numeric type compare unequal")
	}
}
