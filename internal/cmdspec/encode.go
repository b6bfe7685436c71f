package cmdspec

import (
	"fmt"
	"reflect"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// FieldEncoder is implemented by field types that encode themselves;
// ok=false leaves the field out.
type FieldEncoder interface {
	EncodeField() (v any, ok bool)
}

// Encode returns src (a command struct or a pointer to one) as a request
// document: the command name first, then the fields that are set in
// declaration order, the inline fields, and the generic arguments. Zero
// values are left out (Decode reads an absent field as its zero value),
// except required fields and the command's own value.
func Encode(src any) (bson.D, error) {
	v := reflect.ValueOf(src)
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return nil, fmt.Errorf("cmdspec: Encode needs a struct, got %T", src)
	}
	s := specOf(v.Type())
	if s.header == nil {
		return nil, fmt.Errorf("cmdspec: %s embeds no cmdspec.Cmd", v.Type())
	}
	var first any = int32(1)
	if s.cmd != nil {
		first, _ = encodeValue(s.cmd, v.FieldByIndex(s.cmd.index))
	}
	out := bson.D{{Key: s.Name, Value: first}}
	out = s.encodeFields(v, out)
	return append(out, v.FieldByIndex(s.header).Interface().(Cmd).Generic...), nil
}

func (s *Spec) encodeFields(v reflect.Value, out bson.D) bson.D {
	for _, f := range s.fields {
		val, ok := encodeValue(f, v.FieldByIndex(f.index))
		if ok || f.required {
			out = append(out, bson.E{Key: f.name, Value: val})
		}
	}
	if s.inline != nil {
		out = append(out, v.FieldByIndex(s.inline).Interface().(bson.D)...)
	}
	return out
}

// encodeValue returns a field's value and whether it is set.
func encodeValue(f *field, v reflect.Value) (any, bool) {
	if e, ok := v.Interface().(FieldEncoder); ok {
		return e.EncodeField()
	}
	if v.CanAddr() {
		if e, ok := v.Addr().Interface().(FieldEncoder); ok {
			return e.EncodeField()
		}
	}
	switch {
	case v.Kind() == reflect.Pointer:
		if v.IsNil() {
			return nil, false
		}
		val, _ := encodeValue(f, v.Elem())
		return val, true
	case v.Type() == reflect.TypeFor[[]bson.D]():
		docs := v.Interface().([]bson.D)
		if docs == nil {
			return nil, false
		}
		a := make(bson.A, len(docs))
		for i, d := range docs {
			a[i] = d
		}
		return a, true
	case f != nil && f.sub != nil:
		return encodeNested(f.sub, v)
	}
	switch v.Kind() {
	case reflect.Interface, reflect.Slice:
		return v.Interface(), !v.IsNil()
	case reflect.String:
		return v.String(), v.String() != ""
	case reflect.Bool:
		return v.Bool(), v.Bool()
	case reflect.Int64:
		return v.Int(), v.Int() != 0
	}
	return v.Interface(), !v.IsZero()
}

func encodeNested(s *Spec, v reflect.Value) (any, bool) {
	if v.Kind() == reflect.Struct {
		return s.encodeFields(v, bson.D{}), !v.IsZero()
	}
	if v.IsNil() {
		return nil, false
	}
	a := make(bson.A, v.Len())
	for i := range a {
		a[i] = s.encodeFields(v.Index(i), bson.D{})
	}
	return a, true
}
