package query

import (
	"strings"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Projection is a compiled find projection. It is immutable.
//
// Invariant: a projection is either an inclusion projection (only listed
// fields, computed fields, $elemMatch and positional fields are returned,
// plus _id unless excluded) or an exclusion projection (every field but the
// excluded ones); $slice and _id fit either.
type Projection struct {
	inclusion  bool
	root       *projNode
	positional bool
	empty      bool
}

// projNode is one path component of the projection tree.
type projNode struct {
	children map[string]*projNode
	order    []string

	include   bool       // inclusion leaf
	exclude   bool       // exclusion leaf
	slice     *sliceSpec // $slice on this field
	elemMatch posMatcher // $elemMatch on this (top-level) field
	expr      expr.Expr  // computed field
	position  bool       // "field.$"
	computed  bool       // this node or a descendant is computed
}

func (n *projNode) terminal() bool {
	return n.include || n.exclude || n.slice != nil || n.elemMatch != nil || n.expr != nil || n.position
}

// CompileProjection validates a find projection.
func CompileProjection(spec bson.D) (*Projection, error) {
	p := &Projection{root: newProjNode(), empty: len(spec) == 0}
	b := projBuilder{p: p}
	if err := b.addDoc("", spec); err != nil {
		return nil, err
	}
	p.inclusion = b.mode == modeInclusion || (b.mode == modeNone && b.idInclude)
	if p.inclusion && !b.idExclude {
		if _, ok := p.root.children["_id"]; !ok {
			p.root.child("_id").include = true
		}
	}
	return p, nil
}

// NeedsPosition reports whether Apply uses its pos argument (a positional
// "field.$" projection), so the caller must supply Matcher.MatchPos's.
func (p *Projection) NeedsPosition() bool { return p.positional }

func newProjNode() *projNode { return &projNode{children: map[string]*projNode{}} }

func (n *projNode) child(name string) *projNode {
	c, ok := n.children[name]
	if !ok {
		c = newProjNode()
		n.children[name] = c
		n.order = append(n.order, name)
	}
	return c
}

type projMode int

const (
	modeNone projMode = iota
	modeInclusion
	modeExclusion
)

type projBuilder struct {
	p                    *Projection
	mode                 projMode
	idInclude, idExclude bool
}

func (b *projBuilder) addDoc(prefix string, spec bson.D) error {
	for _, e := range spec {
		if err := b.addField(prefix+e.Key, e.Value); err != nil {
			return err
		}
	}
	return nil
}

func (b *projBuilder) addField(path string, v any) error {
	if err := checkProjPath(path); err != nil {
		return err
	}
	if strings.HasSuffix(path, ".$") {
		return b.addPositional(strings.TrimSuffix(path, ".$"), v)
	}
	if d, ok := v.(bson.D); ok {
		return b.addDocValue(path, d)
	}
	if isBoolish(v) {
		return b.addBool(path, truthy(v))
	}
	return b.addExpr(path, v)
}

func checkProjPath(path string) error {
	if path == "" {
		return codeErr(mongoerr.FieldPathEmpty, "FieldPath cannot be constructed with empty string")
	}
	for _, part := range strings.Split(path, ".") {
		switch {
		case part == "":
			return codeErr(mongoerr.FieldPathEmptyName, "FieldPath field names may not be empty strings.")
		case strings.HasPrefix(part, "$") && part != "$":
			return codeErr(mongoerr.FieldPathDollarPrefixed, "FieldPath field names may not start with '$'. Consider using $getField or $setField.")
		}
	}
	if i := strings.Index(path, ".$"); i >= 0 && i != len(path)-2 {
		return codeErr(mongoerr.ProjectPositionalMidPath, "As of 4.4, it's illegal to specify positional operator in the middle of a path.Positional projection may only be used at the end, for example: a.b.$. If the query previously used a form like a.b.$.d, remove the parts following the '$' and the results will be equivalent.")
	}
	return nil
}

func isBoolish(v any) bool {
	_, isBool := v.(bool)
	return isBool || bsonx.IsNumber(v)
}

func (b *projBuilder) addBool(path string, include bool) error {
	if path == "_id" {
		b.idInclude, b.idExclude = include, !include
		n, err := b.leaf(path)
		if err == nil {
			n.include, n.exclude = include, !include
		}
		return err
	}
	if err := b.setMode(path, include); err != nil {
		return err
	}
	n, err := b.leaf(path)
	if err == nil {
		n.include, n.exclude = include, !include
	}
	return err
}

func (b *projBuilder) setMode(path string, inclusion bool) error {
	want := modeExclusion
	if inclusion {
		want = modeInclusion
	}
	switch {
	case b.mode == modeNone || b.mode == want:
		b.mode = want
		return nil
	case inclusion:
		return codeErr(mongoerr.ProjectInclusionInExclusion, "Cannot do inclusion on field %s in exclusion projection", path)
	}
	return codeErr(mongoerr.ProjectExclusionInInclusion, "Cannot do exclusion on field %s in inclusion projection", path)
}

// leaf creates the terminal node for path, rejecting collisions with
// paths already in the projection.
func (b *projBuilder) leaf(path string) (*projNode, error) {
	n := b.p.root
	parts := strings.Split(path, ".")
	for i, part := range parts {
		if n.terminal() {
			return nil, codeErr(mongoerr.ProjectPathCollisionPrefix, "Path collision at %s remaining portion %s", path, strings.Join(parts[i:], "."))
		}
		n = n.child(part)
	}
	if n.terminal() || len(n.children) > 0 {
		return nil, codeErr(mongoerr.ProjectPathCollision, "Path collision at %s", path)
	}
	return n, nil
}
