package bsonx_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
)

func TestGetPath(t *testing.T) {
	doc := bson.D{
		{Key: "a", Value: bson.D{{Key: "b", Value: int32(1)}, {Key: "c", Value: bson.A{"x", bson.D{{Key: "d", Value: "y"}}}}}},
		{Key: "e", Value: bson.A{bson.D{{Key: "f", Value: int32(2)}}}},
		{Key: "1", Value: "one"},
		{Key: "a", Value: "dup"},
	}
	tests := []struct {
		path string
		want any
		ok   bool
	}{
		{"a.b", int32(1), true},
		{"a.c.0", "x", true},
		{"a.c.1.d", "y", true},
		{"a.c.2", nil, false},
		{"a.c.01", nil, false},
		{"a.c.-1", nil, false},
		{"e.f", nil, false}, // no array expansion
		{"e.0.f", int32(2), true},
		{"1", "one", true},
		{"a.b.z", nil, false},
		{"zz", nil, false},
		{"", nil, false},
		{"a.", nil, false},
	}
	for _, tt := range tests {
		got, ok := bsonx.GetPath(doc, tt.path)
		if ok != tt.ok || (ok && !bsonx.Equal(got, tt.want)) {
			t.Errorf("GetPath(%q) = %v, %v; want %v, %v", tt.path, got, ok, tt.want, tt.ok)
		}
	}
	if v, _ := bsonx.Get(doc, "a"); bsonx.TypeAlias(v) != "object" {
		t.Errorf("Get returns the first duplicate, got %v", v)
	}
}

func TestClone(t *testing.T) {
	orig := bson.D{
		{Key: "a", Value: bson.A{bson.D{{Key: "b", Value: int32(1)}}}},
		{Key: "bin", Value: bson.Binary{Data: []byte{1}}},
	}
	c := bsonx.Clone(orig).(bson.D)
	if bsonx.Compare(orig, c) != 0 {
		t.Fatal("clone differs")
	}
	c[0].Value.(bson.A)[0].(bson.D)[0].Value = int32(2)
	c[1].Value.(bson.Binary).Data[0] = 9
	if v, _ := bsonx.GetPath(orig, "a.0.b"); v != int32(1) {
		t.Errorf("mutating the clone changed the original: %v", v)
	}
	if orig[1].Value.(bson.Binary).Data[0] != 1 {
		t.Error("clone shares binary data")
	}
}

func TestDepth(t *testing.T) {
	nest := func(n int) bson.D {
		d := bson.D{{Key: "x", Value: int32(1)}}
		for i := 1; i < n; i++ {
			d = bson.D{{Key: "x", Value: d}}
		}
		return d
	}
	if got := bsonx.Depth(nest(5)); got != 5 {
		t.Errorf("Depth = %d, want 5", got)
	}
	if got := bsonx.Depth(bson.D{{Key: "a", Value: bson.A{bson.A{}}}}); got != 2 {
		t.Errorf("Depth with empty inner array = %d, want 2", got)
	}
	if err := bsonx.CheckUserDepth(nest(bsonx.MaxUserDepth)); err != nil {
		t.Errorf("depth %d rejected: %v", bsonx.MaxUserDepth, err)
	}
	if err := bsonx.CheckUserDepth(nest(bsonx.MaxUserDepth + 1)); err == nil {
		t.Error("depth over the limit accepted")
	}
}
