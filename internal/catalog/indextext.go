package catalog

import (
	"math"
	"sort"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/text"
)

// Text indexes are MongoDB's (textIndexVersion 3). A spec's key names its
// text fields with "text" (or "$**" for every string field), optionally
// after equality prefix fields and before suffix fields; it is stored,
// and shown by listIndexes, normalized as MongoDB's fixSpec does: the text
// fields become {_fts: "text", _ftsx: 1} in the key and weights {field:
// weight} (sorted by field), with default_language (english),
// language_override (language) and textIndexVersion (3). Invariants:
//   - parsing a normalized spec yields the same spec (restart, replication);
//   - an entry's key is: prefix values, the term (_fts, a string), its
//     score (_ftsx, a double, text.Spec.Terms), suffix values; a document
//     has one entry per distinct term and none when it has no term;
//   - a collection has at most one text index (IndexOptionsConflict).

// textKeyValue is the key pattern value of a text field.
const textKeyValue = "text"

// Field names of a normalized text key pattern.
const (
	ftsField  = "_fts"
	ftsxField = "_ftsx"
)

// maxTextWeight bounds a weight (MongoDB's MAX_WORD_WEIGHT).
const maxTextWeight = 100000

// textSpecFields are the text index options.
var textSpecFields = map[string]bool{"weights": true, "default_language": true, "language_override": true, "textIndexVersion": true}

// IsTextKey reports whether a key pattern value means "text".
func IsTextKey(v any) bool {
	s, ok := v.(string)
	return ok && s == textKeyValue
}

// IsText reports whether idx is a text index.
func (idx *Index) IsText() bool {
	for _, f := range idx.Key {
		if f.Key == ftsField || IsTextKey(f.Value) {
			return true
		}
	}
	return false
}

// textParts splits a key pattern around its text fields.
type textParts struct {
	before, after bson.D
	fields        []string // text fields of a user key ($** included)
	normalized    bool     // the key already has _fts/_ftsx
}

// splitTextKey checks the key pattern of a text index (MongoDB's order:
// reserved names, prefix/suffix values, adjacency).
func splitTextKey(key bson.D) (*textParts, error) {
	p := &textParts{}
	state := 0 // 0 before the text fields, 1 in them, 2 after
	for i := 0; i < len(key); i++ {
		f := key[i]
		if f.Key == ftsField {
			if !IsTextKey(f.Value) || i+1 >= len(key) || key[i+1].Key != ftsxField {
				return nil, mongoerr.New(mongoerr.CannotCreateIndex, "expecting _fts:\"text\" followed by _ftsx:1")
			}
			p.normalized, state, i = true, 2, i+1
			continue
		}
		if f.Key == ftsxField {
			return nil, mongoerr.New(mongoerr.TextReservedField, "text index with reserved fields _fts/_ftsx not allowed")
		}
		if IsTextKey(f.Value) {
			if state == 2 {
				return nil, mongoerr.New(mongoerr.TextFieldsNotAdjacent, "'text' fields in index must all be adjacent")
			}
			p.fields, state = append(p.fields, f.Key), 1
			continue
		}
		if _, isStr := f.Value.(string); isStr {
			return nil, mongoerr.New(mongoerr.CannotCreateIndex, "Can't use more than one index plugin for a single index.")
		}
		if n, ok := bsonx.AsFloat64(f.Value); !ok || (n != 1 && n != -1) {
			return nil, mongoerr.New(mongoerr.TextNonTextKeyValue, "expected value 1 or -1 for non-text key in compound index")
		}
		if state == 0 {
			p.before = append(p.before, f)
		} else {
			state, p.after = 2, append(p.after, f)
		}
	}
	return p, nil
}

// normalizeText rewrites a text index's key and options (rest) to the
// stored form.
func (idx *Index) normalizeText(rest *bson.D) error {
	p, err := splitTextKey(idx.Key)
	if err != nil {
		return err
	}
	opts, others := bson.D{}, bson.D{}
	for _, e := range *rest {
		if textSpecFields[e.Key] {
			opts = append(opts, e)
		} else {
			others = append(others, e)
		}
	}
	weights, err := textWeights(p, opts)
	if err != nil {
		return err
	}
	lang, override, err := textLanguageOptions(opts)
	if err != nil {
		return err
	}
	key := append(append(append(bson.D{}, p.before...), bson.E{Key: ftsField, Value: textKeyValue},
		bson.E{Key: ftsxField, Value: int32(1)}), p.after...)
	idx.Key = key
	*rest = append(others, bson.E{Key: "weights", Value: weights}, bson.E{Key: "default_language", Value: lang},
		bson.E{Key: "language_override", Value: override}, bson.E{Key: "textIndexVersion", Value: int32(3)})
	return nil
}

// textWeights merges the key's text fields (weight 1) with the weights
// option, sorted by field.
func textWeights(p *textParts, opts bson.D) (bson.D, error) {
	m := map[string]any{}
	for _, f := range p.fields {
		m[f] = int32(1)
	}
	w, has := optValue(opts, "weights")
	switch t := w.(type) {
	case bson.D:
		for _, e := range t {
			n, ok := bsonx.AsFloat64(e.Value)
			if !ok {
				return nil, mongoerr.New(mongoerr.TextWeightNotNumber, "weight for text index needs numeric type")
			}
			if n <= 0 || n >= maxTextWeight {
				return nil, mongoerr.New(mongoerr.TextWeightTooHigh, "score for word too high")
			}
			m[e.Key] = weightValue(n)
		}
	case string:
		if t != text.Wildcard {
			return nil, mongoerr.New(mongoerr.TextWeightsNotObject, "text index option 'weights' must be an object")
		}
		m[text.Wildcard] = int32(1)
	default:
		if has {
			return nil, mongoerr.New(mongoerr.TextWeightsNotObject, "text index option 'weights' must be an object")
		}
	}
	if len(m) == 0 {
		return nil, mongoerr.New(mongoerr.CannotCreateIndex, "text index option 'weights' names no field")
	}
	names := make([]string, 0, len(m))
	for k := range m {
		if k == ftsField || k == ftsxField {
			return nil, mongoerr.New(mongoerr.TextReservedField, "text index with reserved fields _fts/_ftsx not allowed")
		}
		names = append(names, k)
	}
	sort.Strings(names)
	out := make(bson.D, 0, len(names))
	for _, k := range names {
		out = append(out, bson.E{Key: k, Value: m[k]})
	}
	return out, nil
}

func weightValue(n float64) any {
	if n == math.Trunc(n) {
		return int32(n)
	}
	return n
}

func optValue(opts bson.D, name string) (any, bool) {
	for _, e := range opts {
		if e.Key == name {
			return e.Value, true
		}
	}
	return nil, false
}

// textLanguageOptions validates default_language, language_override and
// textIndexVersion.
func textLanguageOptions(opts bson.D) (lang, override string, err error) {
	lang, override = "english", "language"
	if v, ok := optValue(opts, "default_language"); ok {
		s, isStr := v.(string)
		if _, known := text.LookupLanguage(s); !isStr || !known {
			return "", "", mongoerr.New(mongoerr.BadValue, "unsupported language: \"%v\" for text index version 3", v)
		}
		lang = s
	}
	if v, ok := optValue(opts, "language_override"); ok {
		s, isStr := v.(string)
		if !isStr || s == "" || strings.HasPrefix(s, "$") || strings.Contains(s, ".") {
			return "", "", mongoerr.New(mongoerr.BadValue, "language_override is not valid: %v", v)
		}
		override = s
	}
	if v, ok := optValue(opts, "textIndexVersion"); ok {
		if n, isNum := bsonx.AsFloat64(v); !isNum || n != 3 {
			return "", "", mongoerr.New(mongoerr.CannotCreateIndex,
				"Currently only textIndexVersion 3 is supported, not %v", v)
		}
	}
	return lang, override, nil
}
