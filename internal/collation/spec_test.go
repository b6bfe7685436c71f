package collation

import (
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

func TestParseErrors(t *testing.T) {
	cases := []struct {
		doc  bson.D
		code mongoerr.Code
	}{
		{bson.D{{Key: "strength", Value: 2}}, mongoerr.NoSuchKey},
		{bson.D{{Key: "locale", Value: 1}}, mongoerr.TypeMismatch},
		{bson.D{{Key: "locale", Value: ""}}, mongoerr.BadValue},
		{bson.D{{Key: "locale", Value: "xx_bogus"}}, mongoerr.BadValue},
		{bson.D{{Key: "locale", Value: "a\x00b"}}, mongoerr.BadValue},
		{bson.D{{Key: "locale", Value: "simple"}, {Key: "strength", Value: 2}}, mongoerr.FailedToParse},
		{bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 6}}, mongoerr.FailedToParse},
		{bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 1.5}}, mongoerr.BadValue},
		{bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: "2"}}, mongoerr.TypeMismatch},
		{bson.D{{Key: "locale", Value: "en"}, {Key: "caseLevel", Value: 1}}, mongoerr.TypeMismatch},
		{bson.D{{Key: "locale", Value: "en"}, {Key: "caseFirst", Value: "middle"}}, mongoerr.FailedToParse},
		{bson.D{{Key: "locale", Value: "en"}, {Key: "alternate", Value: "x"}}, mongoerr.FailedToParse},
		{bson.D{{Key: "locale", Value: "en"}, {Key: "maxVariable", Value: "x"}}, mongoerr.FailedToParse},
		{bson.D{{Key: "locale", Value: "en"}, {Key: "version", Value: "1.0"}}, mongoerr.IncompatibleCollationVersion},
		{bson.D{{Key: "locale", Value: "en"}, {Key: "bogus", Value: true}}, mongoerr.FailedToParse},
		{bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 1}, {Key: "backwards", Value: true}}, mongoerr.BadValue},
		{bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 2}, {Key: "caseFirst", Value: "upper"}}, mongoerr.BadValue},
	}
	for _, tc := range cases {
		_, err := Parse(tc.doc)
		var me *mongoerr.Error
		if !errors.As(err, &me) || me.Code != tc.code {
			t.Errorf("Parse(%v) = %v, want code %d", tc.doc, err, tc.code)
		}
	}
}

func TestParseNormalises(t *testing.T) {
	for _, simple := range []bson.D{nil, {}, {{Key: "locale", Value: "simple"}}} {
		if s, err := Parse(simple); s != nil || err != nil {
			t.Errorf("Parse(%v) = %v, %v; want simple", simple, s, err)
		}
	}
	s, err := Parse(bson.D{{Key: "locale", Value: "fr_CA"}, {Key: "strength", Value: int32(2)}})
	if err != nil {
		t.Fatal(err)
	}
	want := bson.D{{Key: "locale", Value: "fr_CA"}, {Key: "caseLevel", Value: false}, {Key: "caseFirst", Value: "off"},
		{Key: "strength", Value: int32(2)}, {Key: "numericOrdering", Value: false}, {Key: "alternate", Value: "non-ignorable"},
		{Key: "maxVariable", Value: "punct"}, {Key: "normalization", Value: false}, {Key: "backwards", Value: true},
		{Key: "version", Value: "57.1"}}
	got, _ := bson.Marshal(s.Doc())
	exp, _ := bson.Marshal(want)
	if string(got) != string(exp) {
		t.Fatalf("Doc() = %v, want %v", s.Doc(), want)
	}
	again, err := Parse(s.Doc())
	if err != nil || !Equal(again, s) {
		t.Fatalf("re-parsing the full spec: %v, %v", again, err)
	}
}

func FuzzParseCollation(f *testing.F) {
	seed, _ := bson.Marshal(bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 2}})
	f.Add(seed, "Straße", "STRASSE")
	f.Fuzz(func(t *testing.T, raw []byte, a, b string) {
		var doc bson.D
		if bson.Unmarshal(raw, &doc) != nil {
			return
		}
		s, err := Parse(doc)
		if err != nil || s == nil {
			return
		}
		c := New(s)
		ka, kb := c.Key(a), c.Key(b)
		if cmpSign(c.CompareString(a, b)) != cmpSign(compareStrings(ka, kb)) {
			t.Fatalf("CompareString and Key disagree on %q, %q under %v", a, b, s)
		}
	})
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpSign(n int) int { return min(max(n, -1), 1) }
