package catalog

import (
	"fmt"
	"sort"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/storage/keystring"
	"github.com/relaydb/relaydb/internal/text"
)

// TextSpec returns what text index idx indexes, from its normalized spec.
func (idx *Index) TextSpec() (*text.Spec, error) {
	s := &text.Spec{Weights: map[string]float64{}, LanguageOverride: "language"}
	lang := "english"
	for _, e := range idx.Spec {
		switch e.Key {
		case "weights":
			w, _ := e.Value.(bson.D)
			for _, f := range w {
				n, _ := bsonx.AsFloat64(f.Value)
				s.Weights[f.Key] = n
				s.Wildcard = s.Wildcard || f.Key == text.Wildcard
			}
		case "default_language":
			lang, _ = e.Value.(string)
		case "language_override":
			s.LanguageOverride, _ = e.Value.(string)
		}
	}
	l, ok := text.LookupLanguage(lang)
	if !ok {
		return nil, fmt.Errorf("catalog: text index %s: unknown default_language %q", idx.Name, lang)
	}
	s.DefaultLanguage = l
	return s, nil
}

// TextPrefix returns the fields of a text index's key before _fts.
func (idx *Index) TextPrefix() bson.D {
	for i, f := range idx.Key {
		if f.Key == ftsField {
			return idx.Key[:i]
		}
	}
	return nil
}

// textKeys returns a text index's keys for doc (after its partial filter
// matched): one per distinct term.
func textKeys(idx *Index, doc bson.D) ([][]byte, bool, error) {
	spec, err := idx.TextSpec()
	if err != nil {
		return nil, false, err
	}
	terms, err := spec.Terms(doc)
	if err != nil || len(terms) == 0 {
		return nil, false, err
	}
	var before, after []byte
	inAfter := false
	for _, f := range idx.Key {
		switch f.Key {
		case ftsField:
			continue
		case ftsxField:
			inAfter = true
			continue
		}
		v, err := textExtraValue(doc, f.Key)
		if err != nil {
			return nil, false, err
		}
		if inAfter {
			after = keystring.AppendValue(after, v, isDesc(f.Value))
		} else {
			before = keystring.AppendValue(before, v, isDesc(f.Value))
		}
	}
	names := make([]string, 0, len(terms))
	for t := range terms {
		names = append(names, t)
	}
	sort.Strings(names)
	keys := make([][]byte, 0, len(names))
	for _, t := range names {
		k := keystring.AppendValue(append([]byte(nil), before...), t, false)
		k = keystring.AppendValue(k, terms[t], false)
		keys = append(keys, append(k, after...))
	}
	return keys, len(keys) > 1, nil
}

// textExtraValue is a prefix or suffix field's value: an array is
// Location16675, a missing field null.
func textExtraValue(doc bson.D, path string) (any, error) {
	v, _, err := hashedPathValue(doc, path)
	if mongoerr.Is(err, mongoerr.HashedIndexArray) {
		return nil, mongoerr.New(mongoerr.TextPrefixArray, "cannot have a multi-key as a prefix to a text index")
	}
	return v, err
}

// sameTextOptions compares the text options of two indexes.
func sameTextOptions(a, b *Index) bool {
	for name := range textSpecFields {
		va, _ := optValue(a.Spec, name)
		vb, _ := optValue(b.Spec, name)
		if bsonx.Compare(va, vb) != 0 {
			return false
		}
	}
	return true
}

// textConflict is the error for a second text index on a collection:
// IndexOptionsConflict when its (normalized) key equals the first's,
// else CannotCreateIndex, as MongoDB's.
func textConflict(ex, idx *Index, sameKey bool) error {
	if !ex.IsText() || !idx.IsText() {
		return nil
	}
	if sameKey {
		return mongoerr.New(mongoerr.IndexOptionsConflict,
			"An equivalent index already exists with a different name and options. Requested index: %v, existing index: %v",
			bsonx.ToString(idx.Spec), bsonx.ToString(ex.Spec))
	}
	return mongoerr.New(mongoerr.CannotCreateIndex,
		"only one text index per collection allowed, found existing text index \"%s\"", ex.Name)
}
