package catalog

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/storage/keystring"
)

func TestTextSpecNormalized(t *testing.T) {
	tail := func(weights bson.D, lang, override string) bson.D {
		return d("weights", weights, "default_language", lang, "language_override", override, "textIndexVersion", int32(3))
	}
	fts := d("_fts", "text", "_ftsx", int32(1))
	for _, tc := range []struct {
		name string
		in   bson.D
		key  bson.D
		rest bson.D
	}{
		{"one field", spec("t", d("content", "text")), fts, tail(d("content", int32(1)), "english", "language")},
		{"fields sorted, weights merged", spec("t", d("b", "text", "a", "text"), "weights", d("b", 10, "c", 2.5)),
			fts, tail(d("a", int32(1), "b", int32(10), "c", 2.5), "english", "language")},
		{"wildcard", spec("t", d("$**", "text")), fts, tail(d("$**", int32(1)), "english", "language")},
		{"prefix and suffix", spec("t", d("p", 1, "c", "text", "s", -1), "default_language", "spanish", "language_override", "idioma"),
			d("p", 1, "_fts", "text", "_ftsx", int32(1), "s", -1), tail(d("c", int32(1)), "spanish", "idioma")},
		{"other options kept", spec("t", d("c", "text"), "sparse", true), fts,
			append(d("sparse", true), tail(d("c", int32(1)), "english", "language")...)},
	} {
		idx, err := parseSpec(tc.in)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		want := append(d("v", int32(2), "key", tc.key, "name", "t"), tc.rest...)
		if bsonx.Compare(idx.Spec, want) != 0 {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, bsonx.ToString(idx.Spec), bsonx.ToString(want))
		}
		again, err := parseSpec(idx.Spec) // restart and replication parse the stored form
		if err != nil || bsonx.Compare(again.Spec, idx.Spec) != 0 {
			t.Errorf("%s: reparse %v %v", tc.name, err, again)
		}
	}
}

func TestTextSpecErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   bson.D
		code mongoerr.Code
	}{
		{"reserved", spec("t", d("_ftsx", "text")), mongoerr.TextReservedField},
		{"not adjacent", spec("t", d("a", "text", "b", 1, "c", "text")), mongoerr.TextFieldsNotAdjacent},
		{"bad other value", spec("t", d("a", 2, "c", "text")), mongoerr.TextNonTextKeyValue},
		{"two plugins", spec("t", d("a", "2dsphere", "c", "text")), mongoerr.CannotCreateIndex},
		{"weight type", spec("t", d("c", "text"), "weights", d("c", "x")), mongoerr.TextWeightNotNumber},
		{"weight range", spec("t", d("c", "text"), "weights", d("c", 100000)), mongoerr.TextWeightTooHigh},
		{"weights type", spec("t", d("c", "text"), "weights", 3), mongoerr.TextWeightsNotObject},
		{"language", spec("t", d("c", "text"), "default_language", "klingon"), mongoerr.BadValue},
		{"override", spec("t", d("c", "text"), "language_override", "a.b"), mongoerr.BadValue},
		{"version", spec("t", d("c", "text"), "textIndexVersion", 2), mongoerr.CannotCreateIndex},
	} {
		if _, err := parseSpec(tc.in); !mongoerr.Is(err, tc.code) {
			t.Errorf("%s: got %v, want %d", tc.name, err, tc.code)
		}
	}
}

func TestTextKeys(t *testing.T) {
	idx, err := parseSpec(spec("t", d("p", 1, "c", "text")))
	if err != nil {
		t.Fatal(err)
	}
	keys, multi, err := indexKeys(idx, d("_id", 1, "p", "x", "c", "cakes and ale"))
	if err != nil || !multi || len(keys) != 2 {
		t.Fatalf("keys %d multi %v err %v", len(keys), multi, err)
	}
	// prefix value, term, score: "ale" sorts first.
	want := keystring.AppendValue(keystring.AppendValue(keystring.AppendValue(nil, "x", false), "ale", false), 0.75, false)
	if string(keys[0]) != string(want) {
		t.Errorf("first key %x, want %x", keys[0], want)
	}
	if keys, _, err := indexKeys(idx, d("_id", 2, "c", "the of")); err != nil || len(keys) != 0 {
		t.Errorf("stop words only: %d keys, %v", len(keys), err)
	}
	if _, _, err := indexKeys(idx, d("_id", 3, "p", bson.A{1}, "c", "cake")); !mongoerr.Is(err, mongoerr.TextPrefixArray) {
		t.Errorf("array prefix: %v", err)
	}
	if _, _, err := indexKeys(idx, d("_id", 4, "c", "cake", "language", 1)); !mongoerr.Is(err, mongoerr.TextLanguageOverrideType) {
		t.Errorf("bad language: %v", err)
	}
}

func TestOneTextIndexPerCollection(t *testing.T) {
	first, _ := parseSpec(spec("a_text", d("a", "text")))
	for _, tc := range []struct {
		in   bson.D
		code mongoerr.Code
	}{
		{spec("b_text", d("b", "text")), mongoerr.IndexOptionsConflict},
		{spec("p_1_b_text", d("p", 1, "b", "text")), mongoerr.CannotCreateIndex},
		{spec("a_text", d("a", "text")), 0},
	} {
		idx, err := parseSpec(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		identical, err := conflict([]*Index{first}, idx)
		if tc.code == 0 {
			if err != nil || !identical {
				t.Errorf("%v: identical %v err %v", tc.in, identical, err)
			}
			continue
		}
		if !mongoerr.Is(err, tc.code) {
			t.Errorf("%v: got %v, want %d", tc.in, err, tc.code)
		}
	}
}
