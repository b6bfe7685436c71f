// Package cmdspec is the one codec for command requests: each command is a
// Go struct whose tags name its fields, and Decode/Encode turn a request
// document into that struct and back. A data node (package command) and a
// router parse and re-serialise commands with the same definitions, so this
// package depends on nothing above bsonx and mongoerr.
//
// A command struct embeds Cmd, whose tag names the command and the roles
// that may run it; every other exported field carries a cmd tag:
//
//	type Distinct struct {
//		cmdspec.Cmd `cmd:"distinct" roles:"primary,secondary,router"`
//		Collection cmdspec.CollName `cmd:",command"` // the first element
//		Key        string           `cmd:"key,required"`
//		Query      bson.D           `cmd:"query"`
//	}
//
// Tag options:
//   - command: the field holds the first element's value (the command name
//     is its key); at most one per struct.
//   - required: a missing field is MongoDB's 40414.
//   - notnull: null is a type error rather than an absent field.
//   - inline (a bson.D field): collects fields the struct does not name, so
//     no field is unknown; the handler checks them.
//
// Field types and how a value decodes (MongoDB's IDL types):
//   - string; bool (numbers count as true when non-zero, null as false);
//     int64 (int, long, integral double or decimal; null as absent);
//     bson.D (object; null as absent); bson.A (array); []bson.D (array of
//     objects); any (whatever was sent; null as nil).
//   - *T for any of these: nil when absent (and, except for *any, when null).
//   - a struct or []struct with cmd tags: a nested document or an array of
//     them, with errors named by the full path (update.updates.q).
//   - a type implementing FieldDecoder (and FieldEncoder to encode it).
//
// Errors are MongoDB's: an unknown field 40415, a wrong type TypeMismatch,
// a missing required field 40414. Errors name the command as it was sent,
// except unknown-field errors, which name it by its canonical name.
// Generic arguments (IsGeneric: $db, lsid, writeConcern, ...) are accepted
// by every command and kept in Cmd.Generic, in order.
package cmdspec

import (
	"fmt"
	"reflect"
	"strings"
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Cmd is embedded in every command struct; its struct tag carries the
// command's name (cmd:"find") and roles (roles:"primary,secondary").
type Cmd struct {
	// Generic holds the generic arguments sent with the command, in order.
	Generic bson.D
}

// Roles is the set of roles that may run a command.
type Roles uint8

// The roles a command may be allowed to run in.
const (
	// RolePrimary: a standalone or a replica set's primary.
	RolePrimary Roles = 1 << iota
	// RoleSecondary: a secondary (for reads, when the client's read
	// preference allows it).
	RoleSecondary
	// RoleRouter: a router (mongos).
	RoleRouter
	// RoleUnauthenticated: a connection that has not authenticated.
	RoleUnauthenticated
)

var roleNames = []struct {
	role Roles
	name string
}{{RolePrimary, "primary"}, {RoleSecondary, "secondary"}, {RoleRouter, "router"}, {RoleUnauthenticated, "unauthenticated"}}

// Has reports whether r includes all of want.
func (r Roles) Has(want Roles) bool { return r&want == want }

func (r Roles) String() string {
	var names []string
	for _, rn := range roleNames {
		if r.Has(rn.role) {
			names = append(names, rn.name)
		}
	}
	return strings.Join(names, ",")
}

func parseRoles(s string) (Roles, error) {
	var r Roles
	for _, n := range strings.Split(s, ",") {
		found := false
		for _, rn := range roleNames {
			if rn.name == n {
				r |= rn.role
				found = true
			}
		}
		if !found && n != "" {
			return 0, fmt.Errorf("unknown role %q", n)
		}
	}
	return r, nil
}

// Spec is a command struct's parsed tags.
type Spec struct {
	Name   string // the canonical command name; "" for a nested document
	Roles  Roles
	typ    reflect.Type
	header []int // index of the embedded Cmd; nil for nested documents
	cmd    *field
	fields []*field
	byName map[string]*field
	inline []int // index of the inline bson.D, nil if none
}

type field struct {
	name     string
	path     string // "<command>.<name>": the field's path at the top level (errors, FieldDecoder)
	index    []int
	pos      int // position in Spec.fields
	required bool
	notNull  bool // null is a type error, not an absent field
	typ      reflect.Type
	kind     kind  // how typ decodes
	elem     kind  // how typ's element decodes, for a pointer
	sub      *Spec // for struct and []struct fields
}

// kind is how a field's Go type decodes.
type kind uint8

const (
	kindScalar  kind = iota // string, bool, int64, any
	kindDecoder             // implements FieldDecoder
	kindPointer
	kindDoc    // bson.D
	kindArray  // bson.A
	kindDocs   // []bson.D
	kindNested // struct or []struct with cmd tags
)

func kindOf(t reflect.Type) kind {
	switch {
	case implementsDecoder(t):
		return kindDecoder
	case t.Kind() == reflect.Pointer:
		return kindPointer
	case t == docType:
		return kindDoc
	case t == arrayType:
		return kindArray
	case t == docsType:
		return kindDocs
	case nestedType(t) != nil:
		return kindNested
	}
	return kindScalar
}

// Fields returns the field names the command accepts besides its name and
// the generic arguments, in declaration order; nil when it has an inline
// field (anything is accepted).
func (s *Spec) Fields() []string {
	if s.inline != nil {
		return nil
	}
	out := make([]string, len(s.fields))
	for i, f := range s.fields {
		out[i] = f.name
	}
	return out
}

// CommandType returns the Go type of the field holding the command's
// first value, nil when the struct has none.
func (s *Spec) CommandType() reflect.Type {
	if s.cmd == nil {
		return nil
	}
	return s.cmd.typ
}

// Accepts reports whether name is one of the command's fields.
func (s *Spec) Accepts(name string) bool { return s.byName[name] != nil }

var specs sync.Map // reflect.Type -> *Spec

// For returns the spec of a command struct (v is the struct or a pointer
// to it). It panics on malformed tags: they are programming errors.
func For(v any) *Spec {
	t := reflect.TypeOf(v)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return specOf(t)
}

func specOf(t reflect.Type) *Spec {
	if s, ok := specs.Load(t); ok {
		return s.(*Spec)
	}
	s, err := build(t)
	if err != nil {
		panic(fmt.Sprintf("cmdspec: %s: %v", t, err))
	}
	actual, _ := specs.LoadOrStore(t, s)
	return actual.(*Spec)
}

var (
	cmdType   = reflect.TypeFor[Cmd]()
	docType   = reflect.TypeFor[bson.D]()
	arrayType = reflect.TypeFor[bson.A]()
	docsType  = reflect.TypeFor[[]bson.D]()
)

func build(t reflect.Type) (*Spec, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("not a struct")
	}
	s := &Spec{typ: t, byName: map[string]*field{}}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if sf.Type == cmdType && sf.Anonymous {
			if err := s.setHeader(sf, i); err != nil {
				return nil, err
			}
			continue
		}
		tag, ok := sf.Tag.Lookup("cmd")
		if !ok || tag == "-" || !sf.IsExported() {
			continue
		}
		if err := s.add(sf, i, tag); err != nil {
			return nil, err
		}
	}
	if s.cmd != nil && s.header == nil {
		return nil, fmt.Errorf("a command field needs an embedded cmdspec.Cmd")
	}
	if len(s.fields) > 64 {
		return nil, fmt.Errorf("more than 64 fields")
	}
	for _, f := range s.fields {
		f.path = s.Name + "." + f.name
	}
	return s, nil
}

func (s *Spec) setHeader(sf reflect.StructField, i int) error {
	s.header = []int{i}
	s.Name = sf.Tag.Get("cmd")
	if s.Name == "" {
		return fmt.Errorf("the embedded Cmd needs a cmd:\"<name>\" tag")
	}
	r, err := parseRoles(sf.Tag.Get("roles"))
	s.Roles = r
	return err
}

func (s *Spec) add(sf reflect.StructField, i int, tag string) error {
	name, opts, _ := strings.Cut(tag, ",")
	f := &field{name: name, index: []int{i}, typ: sf.Type, kind: kindOf(sf.Type)}
	if f.kind == kindPointer {
		f.elem = kindOf(sf.Type.Elem())
	}
	for _, o := range strings.Split(opts, ",") {
		switch o {
		case "":
		case "required":
			f.required = true
		case "notnull":
			f.notNull = true
		case "command":
			if s.cmd != nil {
				return fmt.Errorf("two command fields")
			}
			s.cmd = f
			return nil
		case "inline":
			if sf.Type != docType {
				return fmt.Errorf("inline field %s must be a bson.D", sf.Name)
			}
			s.inline = f.index
			return nil
		default:
			return fmt.Errorf("unknown tag option %q on %s", o, sf.Name)
		}
	}
	if name == "" {
		return fmt.Errorf("field %s has no name", sf.Name)
	}
	if s.byName[name] != nil {
		return fmt.Errorf("field name %q twice", name)
	}
	if sub := nestedType(sf.Type); sub != nil {
		f.sub = specOf(sub)
	}
	f.pos = len(s.fields)
	s.fields = append(s.fields, f)
	s.byName[name] = f
	return nil
}

// nestedType returns the struct type of a struct or []struct field that
// decodes as nested documents, nil otherwise.
func nestedType(t reflect.Type) reflect.Type {
	if t == docType || implementsDecoder(t) {
		return nil
	}
	if t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.Kind() == reflect.Struct && !implementsDecoder(t) {
		return t
	}
	return nil
}

// genericFields are accepted by every command (MongoDB's generic arguments).
var genericFields = map[string]bool{
	"$db": true, "lsid": true, "txnNumber": true, "$clusterTime": true,
	"$readPreference": true, "readConcern": true, "writeConcern": true,
	"comment": true, "maxTimeMS": true, "apiVersion": true, "apiStrict": true,
	"apiDeprecationErrors": true, "autocommit": true, "startTransaction": true,
	"$audit": true, "$client": true, "$configServerState": true,
	"$gleStats": true, "$oplogQueryData": true, "$replData": true,
	"mayBypassWriteConcern": true, "databaseVersion": true, "shardVersion": true,
	"clientOperationKey": true, "$queryOptions": true, "versionContext": true,
}

// IsGeneric reports whether name is a generic argument every command takes.
func IsGeneric(name string) bool { return genericFields[name] }
