package text

import (
	"math"
	"reflect"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

func d(kv ...any) bson.D {
	out := bson.D{}
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, bson.E{Key: kv[i].(string), Value: kv[i+1]})
	}
	return out
}

func lang(t *testing.T, name string) *Language {
	t.Helper()
	l, ok := LookupLanguage(name)
	if !ok {
		t.Fatalf("language %q missing", name)
	}
	return l
}

func TestTerms(t *testing.T) {
	for _, tc := range []struct {
		lang, in string
		fold     Fold
		want     []string
	}{
		{"english", "The Running dogs", Fold{}, []string{"run", "dog"}},
		{"english", "Hello, world! stop_it a+b €5 it's", Fold{}, []string{"hello", "world", "stop_it", "b", "€5"}},
		{"english", "don't can will", Fold{}, []string{"can", "will"}}, // Snowball's (MongoDB's) stop list
		{"english", "could would cannot", Fold{}, []string{}},
		{"english", "Café résumé", Fold{}, []string{"cafe", "resum"}},
		{"english", "Café", Fold{DiacriticSensitive: true}, []string{"café"}},
		{"english", "Coffee", Fold{CaseSensitive: true}, []string{"Coffe"}},
		{"none", "The Running", Fold{}, []string{"the", "running"}},
		{"en", "generously", Fold{}, []string{"generous"}},
		{"spanish", "corriendo", Fold{}, []string{"corr"}},
		{"german", "Häuser", Fold{}, []string{"hauser"}}, // no stemmer: folded only
	} {
		got := lang(t, tc.lang).Terms(tc.in, tc.fold)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s %q: got %q, want %q", tc.lang, tc.in, got, tc.want)
		}
	}
}

func spec(t *testing.T, weights map[string]float64) *Spec {
	s := &Spec{Weights: weights, DefaultLanguage: lang(t, "english"), LanguageOverride: "language"}
	_, s.Wildcard = weights[Wildcard]
	return s
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestSpecTermsScores(t *testing.T) {
	for _, tc := range []struct {
		name    string
		weights map[string]float64
		doc     bson.D
		want    map[string]float64
	}{
		// coeff = 0.5*count/numTokens + 0.5; "and" is a stop word.
		{"two tokens", map[string]float64{"t": 1}, d("t", "cakes and ale"), map[string]float64{"cake": 0.75, "ale": 0.75}},
		// The k-th repeat adds 1/2^(k-1) to freq.
		{"repeats", map[string]float64{"t": 1}, d("t", "coffee coffee coffee tea"),
			map[string]float64{"coffe": 1.75 * (0.5*3/4 + 0.5), "tea": 1 * (0.5*1/4 + 0.5)}},
		// A term equal to the whole string gets 1.1.
		{"whole string", map[string]float64{"t": 1}, d("t", "cake"), map[string]float64{"cake": 1.1}},
		{"weights and arrays", map[string]float64{"title": 10, "tags": 1},
			d("title", "cake", "tags", bson.A{"cake", "pie", 3}, "other", "pie"),
			map[string]float64{"cake": 11 + 1.1, "pie": 1.1}},
		{"nested path", map[string]float64{"a.b": 2}, d("a", bson.A{d("b", "fox"), d("c", "dog")}),
			map[string]float64{"fox": 2.2}},
		{"wildcard", map[string]float64{Wildcard: 1, "x": 3}, d("x", "fox", "y", d("z", "dog"), "n", 1),
			map[string]float64{"fox": 3.3, "dog": 1.1}},
		{"language override", map[string]float64{"t": 1}, d("t", "The Running", "language", "none"),
			map[string]float64{"the": 0.5 * 1.5, "running": 0.5 * 1.5}},
		{"no terms", map[string]float64{"t": 1}, d("t", "the and of"), map[string]float64{}},
	} {
		got, err := spec(t, tc.weights).Terms(tc.doc)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(got) != len(tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
			continue
		}
		for k, v := range tc.want {
			if !near(got[k], v) {
				t.Errorf("%s: %s = %v, want %v", tc.name, k, got[k], v)
			}
		}
	}
}

func TestLanguageOverrideErrors(t *testing.T) {
	s := spec(t, map[string]float64{"t": 1})
	for _, tc := range []struct {
		doc  bson.D
		code mongoerr.Code
	}{
		{d("t", "x", "language", int32(5)), mongoerr.TextLanguageOverrideType},
		{d("t", "x", "language", "klingon"), mongoerr.TextLanguageUnsupported},
	} {
		if _, err := s.Terms(tc.doc); !mongoerr.Is(err, tc.code) {
			t.Errorf("%v: got %v, want %d", tc.doc, err, tc.code)
		}
	}
}

func TestParseQuery(t *testing.T) {
	en := lang(t, "english")
	q, err := ParseQuery(d("$search", `coffee -tea "Brown Fox" -"lazy dog" e-mail`), en)
	if err != nil {
		t.Fatal(err)
	}
	want := &Query{Terms: []string{"brown", "coffe", "e", "fox", "mail"}, NegatedTerms: []string{"tea"},
		Phrases: []string{"brown fox"}, NegatedPhrases: []string{"lazy dog"}}
	if !reflect.DeepEqual(q.Terms, want.Terms) || !reflect.DeepEqual(q.NegatedTerms, want.NegatedTerms) ||
		!reflect.DeepEqual(q.Phrases, want.Phrases) || !reflect.DeepEqual(q.NegatedPhrases, want.NegatedPhrases) {
		t.Errorf("got %+v", q)
	}
	if !reflect.DeepEqual(q.LookupTerms(), want.Terms) {
		t.Errorf("lookup %v", q.LookupTerms())
	}
	cs, _ := ParseQuery(d("$search", "Coffee", "$caseSensitive", true), en)
	if !reflect.DeepEqual(cs.Terms, []string{"Coffe"}) || !reflect.DeepEqual(cs.LookupTerms(), []string{"coffe"}) {
		t.Errorf("case-sensitive: %v %v", cs.Terms, cs.LookupTerms())
	}
	for _, bad := range []any{
		"x", bson.D{}, d("$search", 1), d("$search", "x", "$language", "klingon"),
		d("$search", "x", "$caseSensitive", 1), d("$search", "x", "$foo", 1),
	} {
		if _, err := ParseQuery(bad, en); !mongoerr.Is(err, mongoerr.BadValue) {
			t.Errorf("%v: got %v, want BadValue", bad, err)
		}
	}
}

func TestMatch(t *testing.T) {
	en := lang(t, "english")
	s := spec(t, map[string]float64{"t": 1})
	doc := d("t", "The quick brown Fox jumps over the lazy dog")
	for _, tc := range []struct {
		q    bson.D
		want bool
	}{
		{d("$search", "foxes"), true},
		{d("$search", "cat"), false},
		{d("$search", "cat fox"), true},
		{d("$search", "fox -lazy"), false},
		{d("$search", `"brown fox"`), true},
		{d("$search", `"fox brown"`), false},
		{d("$search", `fox -"lazy cat"`), true},
		{d("$search", `fox -"lazy dog"`), false},
		{d("$search", "the"), false}, // only stop words: no term
		{d("$search", "Fox", "$caseSensitive", true), true},
		{d("$search", "fox", "$caseSensitive", true), false},
		{d("$search", `"brown fox"`, "$caseSensitive", true), false},
	} {
		q, err := ParseQuery(tc.q, en)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := q.Match(s, doc); err != nil || got != tc.want {
			t.Errorf("%v: got %v %v, want %v", tc.q, got, err, tc.want)
		}
	}
	q, _ := ParseQuery(d("$search", "fox dog cat"), en)
	terms, _ := s.Terms(doc)
	if got, _ := q.Score(s, doc); !near(got, terms["fox"]+terms["dog"]) {
		t.Errorf("score %v, want %v", got, terms["fox"]+terms["dog"])
	}
}
