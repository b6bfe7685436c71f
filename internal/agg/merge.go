package agg

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// WhenMatched is what $merge does with a result document whose 'on'
// fields match an existing document.
type WhenMatched string

// The whenMatched modes. MergeFields is MongoDB's "merge" (the default).
const (
	WhenMatchedReplace      WhenMatched = "replace"
	WhenMatchedKeepExisting WhenMatched = "keepExisting"
	WhenMatchedMerge        WhenMatched = "merge"
	WhenMatchedFail         WhenMatched = "fail"
	WhenMatchedPipeline     WhenMatched = "pipeline"
)

// WhenNotMatched is what $merge does with a result document that matches
// no existing document.
type WhenNotMatched string

// The whenNotMatched modes; insert is the default.
const (
	WhenNotMatchedInsert  WhenNotMatched = "insert"
	WhenNotMatchedDiscard WhenNotMatched = "discard"
	WhenNotMatchedFail    WhenNotMatched = "fail"
)

// MergeAction is the write the engine must perform for one document.
type MergeAction int

// The actions of MergeSpec.Apply.
const (
	// MergeInsert: insert the result document.
	MergeInsert MergeAction = iota + 1
	// MergeReplace: replace the existing document (same _id) by the result.
	MergeReplace
	// MergeDiscard: write nothing.
	MergeDiscard
	// MergeFail: stop the aggregate with the returned error.
	MergeFail
)

// MergeSpec is a parsed $merge stage. It is immutable once parsed and safe
// for concurrent use.
type MergeSpec struct {
	DB, Coll string
	// On lists the (dotted) fields identifying a target document; ["_id"]
	// unless given. Unless it is exactly ["_id"] the engine must check that
	// a unique index covers them (51183).
	On             []string
	OnDefaulted    bool
	WhenMatched    WhenMatched
	WhenNotMatched WhenNotMatched
	// Pipeline is the whenMatched pipeline (WhenMatched == "pipeline").
	Pipeline bson.A
	// Let is the raw 'let' document of the whenMatched pipeline; its values
	// are evaluated against each result document. $$new is the result
	// document unless Let defines it.
	Let bson.D

	vars     *expr.Vars  // command variables
	letNames []string    // Let's names, then "new"
	letVals  []expr.Expr // Let's expressions
	pipe     *Pipeline   // compiled Pipeline
}

// ParseMerge parses the argument of $merge. db is the aggregate's
// database; vars are the command's let variables (may be nil), visible in
// the whenMatched pipeline and its let.
func ParseMerge(spec any, db string, vars *expr.Vars) (*MergeSpec, error) {
	m := &MergeSpec{DB: db, WhenMatched: WhenMatchedMerge, WhenNotMatched: WhenNotMatchedInsert, vars: vars}
	var err error
	switch t := spec.(type) {
	case string:
		m.Coll = t
	case bson.D:
		err = m.parseDoc(t)
	default:
		err = mongoerr.New(mongoerr.MergeSpecBadType, "$merge only supports a string or object argument, but found %s", typeOf(spec))
	}
	if err == nil {
		err = m.finish()
	}
	if err != nil {
		return nil, err
	}
	return m, nil
}

func (m *MergeSpec) parseDoc(d bson.D) error {
	haveInto := false
	for _, e := range d {
		var err error
		switch e.Key {
		case "into":
			haveInto, err = true, m.parseInto(e.Value)
		case "on":
			err = m.parseOn(e.Value)
		case "let":
			err = m.parseLet(e.Value)
		case "whenMatched":
			err = m.parseWhenMatched(e.Value)
		case "whenNotMatched":
			err = m.parseWhenNotMatched(e.Value)
		default:
			err = mongoerr.New(mongoerr.IDLUnknownField, "BSON field '$merge.%s' is an unknown field.", e.Key)
		}
		if err != nil {
			return err
		}
	}
	if !haveInto {
		return mongoerr.New(mongoerr.IDLMissingField, "BSON field '$merge.into' is missing but a required field")
	}
	return nil
}

func (m *MergeSpec) parseInto(v any) error {
	switch t := v.(type) {
	case string:
		m.Coll = t
		return nil
	case bson.D:
		for _, e := range t {
			s, ok := e.Value.(string)
			switch {
			case e.Key != "db" && e.Key != "coll":
				return mongoerr.New(mongoerr.IDLUnknownField, "BSON field 'into.%s' is an unknown field.", e.Key)
			case !ok:
				return mongoerr.New(mongoerr.TypeMismatch, "BSON field 'into.%s' is the wrong type '%s', expected type 'string'", e.Key, typeOf(e.Value))
			case e.Key == "db":
				m.DB = s
			default:
				m.Coll = s
			}
		}
		if !hasKey(t, "coll") {
			return mongoerr.New(mongoerr.IDLMissingField, "BSON field 'into.coll' is missing but a required field")
		}
		return nil
	}
	return mongoerr.New(mongoerr.MergeIntoBadType, "$merge 'into' field must be either a string or an object, but found %s", typeOf(v))
}

func (m *MergeSpec) parseOn(v any) error {
	switch t := v.(type) {
	case string:
		m.On = []string{t}
	case bson.A:
		if len(t) == 0 {
			return mongoerr.New(mongoerr.MergeOnEmpty, "If explicitly specifying $merge 'on', must include at least one field")
		}
		for _, el := range t {
			s, ok := el.(string)
			if !ok {
				return mongoerr.New(mongoerr.MergeOnElementNotString, "$merge 'on' array elements must be strings, but found %s", typeOf(el))
			}
			m.On = append(m.On, s)
		}
	default:
		return mongoerr.New(mongoerr.MergeOnBadType, "$merge 'on' field must be either a string or an array of strings, but found %s", typeOf(v))
	}
	seen := map[string]bool{}
	for _, f := range m.On {
		if _, err := splitDotted(f); err != nil {
			return err
		}
		if seen[f] {
			return mongoerr.New(mongoerr.DuplicateFieldInList, "Found a duplicate field '%s'", f)
		}
		seen[f] = true
	}
	return nil
}

func (m *MergeSpec) parseLet(v any) error {
	d, ok := v.(bson.D)
	if !ok {
		return mongoerr.New(mongoerr.TypeMismatch, "BSON field '$merge.let' is the wrong type '%s', expected type 'object'", typeOf(v))
	}
	m.Let = d
	return nil
}

func (m *MergeSpec) parseWhenMatched(v any) error {
	switch t := v.(type) {
	case string:
		switch w := WhenMatched(t); w {
		case WhenMatchedReplace, WhenMatchedKeepExisting, WhenMatchedMerge, WhenMatchedFail:
			m.WhenMatched = w
			return nil
		}
		return mongoerr.New(mongoerr.BadValue, "Enumeration value '%s' for field 'whenMatched' is not a valid value.", t)
	case bson.A:
		m.WhenMatched, m.Pipeline = WhenMatchedPipeline, t
		return nil
	}
	return mongoerr.New(mongoerr.MergeWhenMatchedBadType, "$merge 'whenMatched' field must be either a string or an array, but found %s", typeOf(v))
}

func (m *MergeSpec) parseWhenNotMatched(v any) error {
	s, ok := v.(string)
	if !ok {
		return mongoerr.New(mongoerr.TypeMismatch, "BSON field '$merge.whenNotMatched' is the wrong type '%s', expected type 'string'", typeOf(v))
	}
	switch w := WhenNotMatched(s); w {
	case WhenNotMatchedInsert, WhenNotMatchedDiscard, WhenNotMatchedFail:
		m.WhenNotMatched = w
		return nil
	}
	return mongoerr.New(mongoerr.BadValue, "Enumeration value '%s' for field '$merge.whenNotMatched' is not a valid value.", s)
}

// finish applies defaults, validates the target and compiles the
// whenMatched pipeline with its let variables.
func (m *MergeSpec) finish() error {
	if err := checkTarget("$merge", m.DB, m.Coll); err != nil {
		return err
	}
	if m.On == nil {
		m.On, m.OnDefaulted = []string{"_id"}, true
	}
	if m.Let != nil && m.WhenMatched != WhenMatchedPipeline {
		return mongoerr.New(mongoerr.MergeLetWithWhenMatchedMode, "Cannot use 'let' variables with 'whenMatched: %s' mode", m.WhenMatched)
	}
	if m.WhenMatched != WhenMatchedPipeline {
		return nil
	}
	return m.compilePipeline()
}
