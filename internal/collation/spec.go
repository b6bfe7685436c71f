package collation

import (
	"fmt"
	"math"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Version is the collator version relaydb reports (MongoDB's ICU version).
const Version = "57.1"

// Spec is a parsed, normalised non-simple collation.
type Spec struct {
	Locale          string
	CaseLevel       bool
	CaseFirst       string // "upper", "lower" or "off"
	Strength        int    // 1..5
	NumericOrdering bool
	Alternate       string // "non-ignorable" or "shifted"
	MaxVariable     string // "punct" or "space"
	Normalization   bool
	Backwards       bool
	Version         string
}

// Doc is the full spec as MongoDB shows it (every field, in its order).
func (s *Spec) Doc() bson.D {
	return bson.D{
		{Key: "locale", Value: s.Locale}, {Key: "caseLevel", Value: s.CaseLevel},
		{Key: "caseFirst", Value: s.CaseFirst}, {Key: "strength", Value: int32(s.Strength)},
		{Key: "numericOrdering", Value: s.NumericOrdering}, {Key: "alternate", Value: s.Alternate},
		{Key: "maxVariable", Value: s.MaxVariable}, {Key: "normalization", Value: s.Normalization},
		{Key: "backwards", Value: s.Backwards}, {Key: "version", Value: s.Version},
	}
}

// String is a stable identity of the spec (equal specs, equal strings).
func (s *Spec) String() string { return fmt.Sprintf("%+v", *s) }

// Equal reports whether two specs (nil = simple) are the same collation.
func Equal(a, b *Spec) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

// IsSimple reports whether doc is absent, empty or {locale: "simple"} alone.
func IsSimple(doc bson.D) bool {
	s, err := Parse(doc)
	return err == nil && s == nil
}

// Parse validates a collation document as MongoDB's CollatorFactoryICU
// does and returns its normalised spec, or nil for the simple collation
// (an empty document too, as MongoDB treats an omitted collation).
func Parse(doc bson.D) (*Spec, error) {
	if len(doc) == 0 {
		return nil, nil
	}
	loc, err := localeField(doc)
	if err != nil {
		return nil, err
	}
	if loc == "simple" {
		if len(doc) > 1 {
			return nil, mongoerr.New(mongoerr.FailedToParse, "If locale=simple, no other fields should be present in: %s", show(doc))
		}
		return nil, nil
	}
	if err := checkLocale(loc, doc); err != nil {
		return nil, err
	}
	s := defaults(loc)
	if err := s.applyFields(doc); err != nil {
		return nil, err
	}
	return s, s.validate()
}

func localeField(doc bson.D) (string, error) {
	v, ok := lookup(doc, "locale")
	if !ok {
		return "", mongoerr.New(mongoerr.NoSuchKey, "Missing expected field \"locale\"")
	}
	loc, ok := v.(string)
	if !ok {
		return "", typeErr("locale", "string", v)
	}
	if strings.IndexByte(loc, 0) >= 0 {
		return "", mongoerr.New(mongoerr.BadValue, "Field 'locale' cannot contain null byte. Collation spec: %s", show(doc))
	}
	return loc, nil
}

func checkLocale(loc string, doc bson.D) error {
	if loc == "" {
		return mongoerr.New(mongoerr.BadValue, "Field 'locale' cannot be the empty string in: %s", show(doc))
	}
	if _, ok := locales[loc]; !ok {
		return mongoerr.New(mongoerr.BadValue, "Field 'locale' is invalid in: %s", show(doc))
	}
	return nil
}

// applyFields sets every field present in doc over the locale's defaults;
// an unknown field is FailedToParse, a wrong type TypeMismatch.
func (s *Spec) applyFields(doc bson.D) error {
	for _, e := range doc {
		if err := s.applyField(e); err != nil {
			return err
		}
	}
	return nil
}

func (s *Spec) applyField(e bson.E) error {
	switch e.Key {
	case "locale":
		return nil
	case "caseLevel":
		return setBool(&s.CaseLevel, e)
	case "numericOrdering":
		return setBool(&s.NumericOrdering, e)
	case "normalization":
		return setBool(&s.Normalization, e)
	case "backwards":
		return setBool(&s.Backwards, e)
	case "strength":
		return s.setStrength(e.Value)
	case "caseFirst":
		return setEnum(&s.CaseFirst, e, "Field 'caseFirst' must be 'upper', 'lower', or 'off'. Got: %s", "upper", "lower", "off")
	case "alternate":
		return setEnum(&s.Alternate, e, "Field 'alternate' must be 'non-ignorable' or 'shifted'. Got: %s", "non-ignorable", "shifted")
	case "maxVariable":
		return setEnum(&s.MaxVariable, e, "Field 'maxVariable' must be 'punct' or 'space'. Got: %s", "punct", "space")
	case "version":
		return s.setVersion(e.Value)
	}
	return mongoerr.New(mongoerr.FailedToParse, "Collation spec contains unknown field %s", e.Key)
}

func setBool(dst *bool, e bson.E) error {
	b, ok := e.Value.(bool)
	if !ok {
		return typeErr(e.Key, "bool", e.Value)
	}
	*dst = b
	return nil
}

func setEnum(dst *string, e bson.E, msg string, allowed ...string) error {
	v, ok := e.Value.(string)
	if !ok {
		return typeErr(e.Key, "string", e.Value)
	}
	for _, a := range allowed {
		if v == a {
			*dst = v
			return nil
		}
	}
	return mongoerr.New(mongoerr.FailedToParse, msg, v)
}

func (s *Spec) setStrength(v any) error {
	var n float64
	switch x := v.(type) {
	case int32:
		n = float64(x)
	case int64:
		n = float64(x)
	case int:
		n = float64(x)
	case float64:
		n = x
	default:
		return typeErr("strength", "number", v)
	}
	if n != math.Trunc(n) {
		return mongoerr.New(mongoerr.BadValue, "Expected field \"strength\" to have a value exactly representable as a 64-bit integer, but found strength: %v", v)
	}
	if n < 1 || n > 5 {
		return mongoerr.New(mongoerr.FailedToParse, "Field 'strength' must be an integer 1 through 5. Got: %v", v)
	}
	s.Strength = int(n)
	return nil
}

func (s *Spec) setVersion(v any) error {
	str, ok := v.(string)
	if !ok {
		return typeErr("version", "string", v)
	}
	if str != Version {
		return mongoerr.New(mongoerr.IncompatibleCollationVersion, "Requested collation version %s but the only available collator version was %s", str, Version)
	}
	return nil
}

// validate refuses combinations MongoDB refuses.
func (s *Spec) validate() error {
	if s.Backwards && s.Strength == 1 {
		return mongoerr.New(mongoerr.BadValue, "'backwards' is invalid with 'strength' of 1 in: %s", show(s.Doc()))
	}
	if s.CaseFirst != "off" && !s.CaseLevel && s.Strength <= 2 {
		return mongoerr.New(mongoerr.BadValue, "'caseFirst' is invalid unless 'caseLevel' is on or 'strength' is greater than 2 in: %s", show(s.Doc()))
	}
	return nil
}

func lookup(doc bson.D, key string) (any, bool) {
	for _, e := range doc {
		if e.Key == key {
			return e.Value, true
		}
	}
	return nil, false
}

func typeErr(field, want string, v any) error {
	return mongoerr.New(mongoerr.TypeMismatch, "\"%s\" had the wrong type. Expected %s, found %s", field, want, typeName(v))
}

func typeName(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case bool:
		return "bool"
	case int32:
		return "int"
	case int64:
		return "long"
	case float64:
		return "double"
	case bson.D:
		return "object"
	case bson.A:
		return "array"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

func show(d bson.D) string {
	b, err := bson.MarshalExtJSON(d, false, false)
	if err != nil {
		return fmt.Sprint(d)
	}
	return string(b)
}
