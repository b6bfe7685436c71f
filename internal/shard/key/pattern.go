package key

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Hashed is the pattern value of a hashed field (IndexNames::HASHED).
const Hashed = "hashed"

// Field is one field of a shard key pattern.
type Field struct {
	Path   string // dotted path, e.g. "a.b"
	Hashed bool   // {path: "hashed"}; otherwise ascending ({path: 1})
}

// Pattern is a parsed shard key pattern. The zero Pattern is not valid;
// build one with Parse.
type Pattern struct {
	doc    bson.D  // as given, for config.collections.key
	fields []Field // one per element of doc, in order
}

// Parse validates a shard key pattern with MongoDB's checks and messages
// (ShardKeyPattern's parseShardKeyPattern): BadValue (2) for an empty key,
// an empty or '$'-prefixed path part, a value other than 1 or "hashed",
// or a second hashed field. relaydb also refuses, with BadValue, a path
// that repeats or is a prefix of another ({a: 1, "a.b": 1}).
func Parse(doc bson.D) (Pattern, error) {
	if len(doc) == 0 {
		return Pattern{}, mongoerr.New(mongoerr.BadValue, "Shard key is empty")
	}
	p := Pattern{doc: bsonx.CloneDoc(doc), fields: make([]Field, 0, len(doc))}
	for _, e := range doc {
		f, err := parseField(doc, e, p.hashedCount())
		if err != nil {
			return Pattern{}, err
		}
		p.fields = append(p.fields, f)
	}
	if err := checkConflicts(doc, p.fields); err != nil {
		return Pattern{}, err
	}
	return p, nil
}

// MustParse is Parse for patterns known to be valid (tests, constants).
func MustParse(doc bson.D) Pattern {
	p, err := Parse(doc)
	if err != nil {
		panic(err)
	}
	return p
}

func (p Pattern) hashedCount() int {
	n := 0
	for _, f := range p.fields {
		if f.Hashed {
			n++
		}
	}
	return n
}

func parseField(doc bson.D, e bson.E, hashedSoFar int) (Field, error) {
	if err := checkPath(e.Key); err != nil {
		return Field{}, err
	}
	if s, ok := e.Value.(string); ok && s == Hashed {
		if hashedSoFar > 0 {
			return Field{}, mongoerr.New(mongoerr.BadValue,
				"Shard key %s can contain at most one 'hashed' field. Failed to parse field %s",
				Format(doc), e.Key)
		}
		return Field{Path: e.Key, Hashed: true}, nil
	}
	if !isOne(e.Value) {
		// MongoDB's message lacks the space after the pattern; kept as is.
		return Field{}, mongoerr.New(mongoerr.BadValue,
			"Shard key %snumerical fields must be set to a value of 1 (ascending). Failed to parse field %s",
			Format(doc), e.Key)
	}
	return Field{Path: e.Key}, nil
}

// isOne reports whether v is a number whose safeNumberInt() is 1: 1,
// 1.0, 1.5 and NumberLong(1) are (doubles truncate); a decimal rounds
// half to even, so NumberDecimal("1.4") is and NumberDecimal("1.5") is not.
func isOne(v any) bool {
	if !bsonx.IsNumber(v) {
		return false
	}
	f, _ := bsonx.AsFloat64(v)
	if _, ok := v.(bson.Decimal128); ok {
		return f > 0.5 && f < 1.5
	}
	return f >= 1 && f < 2
}

func checkPath(path string) error {
	if path == "" {
		return mongoerr.New(mongoerr.BadValue, "Field %s is empty", path)
	}
	for i, part := range strings.Split(path, ".") {
		if part == "" {
			return mongoerr.New(mongoerr.BadValue, "Field %s contains empty parts", path)
		}
		if strings.HasPrefix(part, "$") && (i == 0 || !isDBRefPart(part)) {
			return mongoerr.New(mongoerr.BadValue, "Field %s contains parts that start with '$'", path)
		}
	}
	return nil
}

func isDBRefPart(part string) bool { return part == "$id" || part == "$ref" || part == "$db" }

func checkConflicts(doc bson.D, fields []Field) error {
	for i, a := range fields {
		for _, b := range fields[i+1:] {
			if isPrefixPath(a.Path, b.Path) || isPrefixPath(b.Path, a.Path) {
				return mongoerr.New(mongoerr.BadValue,
					"Shard key %s contains conflicting paths %s and %s", Format(doc), a.Path, b.Path)
			}
		}
	}
	return nil
}

// isPrefixPath reports whether path p equals q or is a parent of it.
func isPrefixPath(p, q string) bool {
	return p == q || strings.HasPrefix(q, p+".")
}

// Doc returns the pattern as given to Parse.
func (p Pattern) Doc() bson.D { return p.doc }

// Fields returns the pattern's fields in order. Callers must not modify it.
func (p Pattern) Fields() []Field { return p.fields }

// Len returns the number of fields.
func (p Pattern) Len() int { return len(p.fields) }

// String renders the pattern as MongoDB's BSONObj::toString does.
func (p Pattern) String() string { return Format(p.doc) }

// HashedField returns the index of the hashed field, or -1 if none.
func (p Pattern) HashedField() int {
	for i, f := range p.fields {
		if f.Hashed {
			return i
		}
	}
	return -1
}

// IsHashed reports whether the pattern has a hashed field.
func (p Pattern) IsHashed() bool { return p.HashedField() >= 0 }

// HasHashedPrefix reports whether the first field is hashed.
func (p Pattern) HasHashedPrefix() bool { return len(p.fields) > 0 && p.fields[0].Hashed }

// GlobalMin returns the smallest key: every field MinKey.
func (p Pattern) GlobalMin() bson.D { return p.fill(bson.MinKey{}) }

// GlobalMax returns the largest key: every field MaxKey.
func (p Pattern) GlobalMax() bson.D { return p.fill(bson.MaxKey{}) }

func (p Pattern) fill(v any) bson.D {
	d := make(bson.D, len(p.fields))
	for i, f := range p.fields {
		d[i] = bson.E{Key: f.Path, Value: v}
	}
	return d
}
