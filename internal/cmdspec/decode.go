package cmdspec

import (
	"fmt"
	"math"
	"reflect"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// FieldDecoder is implemented (on the pointer) by field types that decode
// themselves. DecodeField is called when the field is present, null
// included; path names the field in errors ("find.hint").
type FieldDecoder interface {
	DecodeField(path string, v any) error
}

// Validator is implemented by command structs with rules across fields;
// Decode calls Validate after decoding.
type Validator interface {
	Validate() error
}

var decoderType = reflect.TypeFor[FieldDecoder]()

func implementsDecoder(t reflect.Type) bool { return reflect.PointerTo(t).Implements(decoderType) }

// Decode fills dst, a pointer to a command struct, from cmd (the request
// document, command name first). Fields that repeat keep their first value.
func Decode(cmd bson.D, dst any) error {
	v := reflect.ValueOf(dst)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("cmdspec: Decode needs a pointer to a struct, got %T", dst)
	}
	s := specOf(v.Elem().Type())
	if s.header == nil {
		return fmt.Errorf("cmdspec: %s embeds no cmdspec.Cmd", v.Elem().Type())
	}
	if len(cmd) == 0 {
		return mongoerr.New(mongoerr.FailedToParse, "Empty command object")
	}
	v = v.Elem()
	v.SetZero()
	if s.cmd != nil {
		f := *s.cmd
		f.name = cmd[0].Key // errors name it <cmd>.<cmd>
		if err := decodeValue(&f, f.kind, v.Field(f.index[0]), cmd[0].Value, cmd[0].Key); err != nil {
			return err
		}
	}
	if err := s.decodeFields(v, cmd[1:], cmd[0].Key, true); err != nil {
		return err
	}
	if val, ok := dst.(Validator); ok {
		return val.Validate()
	}
	return nil
}

// CheckUnknown returns MongoDB's unknown-field error for the first field of
// cmd (after the command name) the command does not accept. The dispatcher
// calls it before the role checks, as MongoDB's parser runs first.
func (s *Spec) CheckUnknown(cmd bson.D) error {
	if s.inline != nil || len(cmd) == 0 {
		return nil
	}
	for _, e := range cmd[1:] {
		if s.byName[e.Key] == nil && !genericFields[e.Key] {
			return unknownField(s.Name, e.Key)
		}
	}
	return nil
}

func unknownField(path, name string) error {
	return mongoerr.New(mongoerr.IDLUnknownField, "BSON field '%s.%s' is an unknown field.", path, name)
}

// decodeFields decodes a document's fields into v; prefix names the
// document in errors. top marks the command document itself, where the
// generic arguments are accepted.
func (s *Spec) decodeFields(v reflect.Value, doc bson.D, prefix string, top bool) error {
	var seen uint64 // bit i: s.fields[i] was decoded (structs have < 64 fields)
	for _, e := range doc {
		f := s.byName[e.Key]
		switch {
		case f != nil:
			if seen&(1<<f.pos) != 0 {
				continue
			}
			seen |= 1 << f.pos
			if err := decodeValue(f, f.kind, v.Field(f.index[0]), e.Value, prefix); err != nil {
				return err
			}
		case top && genericFields[e.Key]:
			h := v.Field(s.header[0]).Addr().Interface().(*Cmd)
			if h.Generic == nil { // drivers send a few ($db, lsid, $clusterTime, ...)
				h.Generic = make(bson.D, 0, 4)
			}
			h.Generic = append(h.Generic, e)
		case s.inline != nil:
			in := v.Field(s.inline[0]).Addr().Interface().(*bson.D)
			*in = append(*in, e)
		case top:
			return unknownField(s.Name, e.Key)
		default:
			return unknownField(prefix, e.Key)
		}
	}
	for _, f := range s.fields {
		if f.required && seen&(1<<f.pos) == 0 {
			return mongoerr.New(mongoerr.IDLMissingField, "BSON field '%s.%s' is missing but a required field", prefix, f.name)
		}
	}
	return nil
}

// pathIn is f's path in the document named prefix, without building a
// string at the top level (the common case, decoded once per request).
func (f *field) pathIn(prefix string) string {
	if len(f.path) == len(prefix)+1+len(f.name) && f.path[:len(prefix)] == prefix {
		return f.path
	}
	return prefix + "." + f.name
}

// decodeValue decodes one present value v of field f (in the document
// named prefix) into dst, as kind k says.
func decodeValue(f *field, k kind, dst reflect.Value, v any, prefix string) error {
	if v == nil && f.notNull && k != kindDecoder {
		return TypeError(f.pathIn(prefix), v, idlType(dst.Type()))
	}
	switch k {
	case kindDecoder:
		return dst.Addr().Interface().(FieldDecoder).DecodeField(f.pathIn(prefix), v)
	case kindPointer:
		return decodePointer(f, dst, v, prefix)
	case kindDoc:
		if d, ok := v.(bson.D); ok {
			*dst.Addr().Interface().(*bson.D) = d
			return nil
		}
		d, err := asDoc(f.pathIn(prefix), v)
		*dst.Addr().Interface().(*bson.D) = d
		return err
	case kindArray:
		a, ok := v.(bson.A)
		if !ok {
			return TypeError(f.pathIn(prefix), v, "array")
		}
		*dst.Addr().Interface().(*bson.A) = a
		return nil
	case kindDocs:
		docs, err := asDocs(f.pathIn(prefix), v)
		*dst.Addr().Interface().(*[]bson.D) = docs
		return err
	case kindNested:
		return decodeNested(f.sub, dst, v, f.pathIn(prefix))
	}
	return decodeScalar(dst, v, f, prefix)
}

// decodePointer allocates a pointer field's value; null leaves it nil
// unless the element type has a use for null (any, string, bson.A).
func decodePointer(f *field, dst reflect.Value, v any, prefix string) error {
	et := dst.Type().Elem()
	if v == nil && et.Kind() != reflect.Interface && et != arrayType && et.Kind() != reflect.String {
		return nil
	}
	p := reflect.New(et)
	if err := decodeValue(f, f.elem, p.Elem(), v, prefix); err != nil {
		return err
	}
	dst.Set(p)
	return nil
}

// decodeScalar sets a string, bool, int64 or any field; the common types
// take a fast path that neither boxes v again nor builds the field's path.
func decodeScalar(dst reflect.Value, v any, f *field, prefix string) error {
	switch dst.Kind() {
	case reflect.Interface:
		if v == nil {
			return nil
		}
		if p, ok := dst.Addr().Interface().(*any); ok {
			*p = v
		} else {
			dst.Set(reflect.ValueOf(v))
		}
		return nil
	case reflect.String:
		s, ok := v.(string)
		if !ok {
			return TypeError(f.pathIn(prefix), v, "string")
		}
		dst.SetString(s)
		return nil
	case reflect.Bool:
		if b, ok := v.(bool); ok {
			dst.SetBool(b)
			return nil
		}
		b, err := Bool(f.pathIn(prefix), v)
		dst.SetBool(b)
		return err
	case reflect.Int64:
		switch n := v.(type) {
		case int64:
			dst.SetInt(n)
			return nil
		case int32:
			dst.SetInt(int64(n))
			return nil
		}
		n, err := Int64(f.pathIn(prefix), v)
		dst.SetInt(n)
		return err
	}
	return fmt.Errorf("cmdspec: %s: unsupported field type %s", f.pathIn(prefix), dst.Type())
}

// decodeNested decodes a document or an array of documents into a struct
// or a slice of structs. Element errors name the array, not the index, as
// MongoDB's IDL does (update.updates.q).
func decodeNested(s *Spec, dst reflect.Value, v any, path string) error {
	if dst.Kind() == reflect.Struct {
		d, ok := v.(bson.D)
		if !ok {
			return TypeError(path, v, "object")
		}
		return s.decodeFields(dst, d, path, false)
	}
	docs, err := asDocs(path, v)
	if err != nil {
		return err
	}
	out := reflect.MakeSlice(dst.Type(), len(docs), len(docs))
	for i, d := range docs {
		if err := s.decodeFields(out.Index(i), d, path, false); err != nil {
			return err
		}
	}
	dst.Set(out)
	return nil
}

// idlType names a Go field type as MongoDB's IDL does in type errors.
func idlType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool:
		return "bool"
	case reflect.Int64:
		return "[long, int, decimal, double]"
	case reflect.String:
		return "string"
	case reflect.Slice:
		if t != docType {
			return "array"
		}
	}
	return "object"
}

// TypeError is MongoDB's IDL type mismatch; expected is an IDL type name
// or a bracketed list of them ("[string, object]").
func TypeError(path string, v any, expected string) error {
	plural := ""
	if len(expected) > 0 && expected[0] == '[' {
		plural = "s"
	}
	return mongoerr.New(mongoerr.TypeMismatch, "BSON field '%s' is the wrong type '%s', expected type%s '%s'",
		path, bsonx.TypeAlias(v), plural, expected)
}

// asDoc accepts an object; null is absent (nil).
func asDoc(path string, v any) (bson.D, error) {
	if v == nil {
		return nil, nil
	}
	d, ok := v.(bson.D)
	if !ok {
		return nil, TypeError(path, v, "object")
	}
	return d, nil
}

// asDocs accepts an array whose elements are all objects.
func asDocs(path string, v any) ([]bson.D, error) {
	a, ok := v.(bson.A)
	if !ok {
		return nil, TypeError(path, v, "array")
	}
	out := make([]bson.D, len(a))
	for i, x := range a {
		d, isDoc := x.(bson.D)
		if !isDoc {
			return nil, TypeError(fmt.Sprintf("%s.%d", path, i), x, "object")
		}
		out[i] = d
	}
	return out, nil
}

// Bool is IDL's bool with MongoDB's leniency: numbers are true when
// non-zero, null is false.
func Bool(path string, v any) (bool, error) {
	switch b := v.(type) {
	case nil:
		return false, nil
	case bool:
		return b, nil
	case int32, int64, float64, bson.Decimal128:
		f, _ := bsonx.AsFloat64(b)
		return f != 0, nil
	}
	return false, TypeError(path, v, "bool")
}

// Int64 accepts int, long, decimal or an integral double; null is 0.
func Int64(path string, v any) (int64, error) {
	switch n := v.(type) {
	case nil:
		return 0, nil
	case int32:
		return int64(n), nil
	case int64:
		return n, nil
	case float64:
		if math.IsNaN(n) || n != math.Trunc(n) || math.Abs(n) > 9.2e18 {
			return 0, mongoerr.New(mongoerr.BadValue, "Expected field %s to be an integer, but got %v", lastSegment(path), n)
		}
		return int64(n), nil
	case bson.Decimal128:
		if i, ok := bsonx.AsInt64(n); ok {
			return i, nil
		}
		return 0, mongoerr.New(mongoerr.BadValue, "Expected field %s to be an integer", lastSegment(path))
	}
	return 0, TypeError(path, v, "[long, int, decimal, double]")
}

func lastSegment(path string) string {
	for i := len(path) - 1; i >= 0; i-- {
		if path[i] == '.' {
			return path[i+1:]
		}
	}
	return path
}
