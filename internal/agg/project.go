package agg

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// projKind says how a projection tree is applied.
type projKind int

const (
	projInclusion projKind = iota // only included and computed fields
	projExclusion                 // every field but the excluded ones
	projAddFields                 // every field, plus computed ones
)

type leafMode int

const (
	leafSub leafMode = iota
	leafInclude
	leafExclude
	leafComputed
)

// projNode is one level of a projection: its fields in spec order.
type projNode struct {
	children []*projChild
	byName   map[string]*projChild
}

type projChild struct {
	name string
	mode leafMode
	e    expr.Expr
	sub  *projNode
}

func newProjNode() *projNode { return &projNode{byName: map[string]*projChild{}} }

// insert places a leaf at parts, creating intermediate nodes.
func (n *projNode) insert(parts []string, leaf *projChild, full string) error {
	c := n.byName[parts[0]]
	if len(parts) == 1 {
		if c != nil {
			return mongoerr.New(mongoerr.ProjectPathCollision, "Invalid %s :: caused by :: Path collision at %s", "$project", full)
		}
		leaf.name = parts[0]
		n.add(leaf)
		return nil
	}
	if c == nil {
		c = &projChild{name: parts[0], mode: leafSub, sub: newProjNode()}
		n.add(c)
	} else if c.mode != leafSub {
		return mongoerr.New(mongoerr.ProjectPathCollisionPrefix, "Invalid $project :: caused by :: Path collision at %s remaining portion %s", full, strings.Join(parts[1:], "."))
	}
	return c.sub.insert(parts[1:], leaf, full)
}

func (n *projNode) add(c *projChild) {
	n.children = append(n.children, c)
	n.byName[c.name] = c
}

// hasComputed reports whether any leaf below n is computed.
func (n *projNode) hasComputed() bool {
	for _, c := range n.children {
		if c.mode == leafComputed || c.mode == leafSub && c.sub.hasComputed() {
			return true
		}
	}
	return false
}

// projParser builds a projection tree from a $project/$addFields spec.
type projParser struct {
	cc        *compileCtx
	addFields bool
	root      *projNode
	included  string // a path included or computed (for the error message)
	excluded  string // a path excluded, other than _id
}

func parseProjection(spec bson.D, cc *compileCtx, addFields bool) (*projNode, projKind, error) {
	p := &projParser{cc: cc, addFields: addFields, root: newProjNode()}
	if err := p.parseLevel(spec, ""); err != nil {
		return nil, 0, err
	}
	switch {
	case addFields:
		return p.root, projAddFields, nil
	case p.excluded != "" || (p.included == "" && p.root.byName["_id"] != nil && p.root.byName["_id"].mode == leafExclude):
		return p.root, projExclusion, nil
	}
	if p.root.byName["_id"] == nil {
		id := &projChild{name: "_id", mode: leafInclude}
		p.root.children = append([]*projChild{id}, p.root.children...)
		p.root.byName["_id"] = id
	}
	return p.root, projInclusion, nil
}

func (p *projParser) parseLevel(spec bson.D, prefix string) error {
	for _, e := range spec {
		if e.Key == "" || strings.HasPrefix(e.Key, "$") {
			return mongoerr.New(mongoerr.FieldPathDollarPrefixed, "FieldPath field names may not start with '$'. Consider using $getField or $setField.")
		}
		full := prefix + e.Key
		if _, err := splitDotted(full); err != nil {
			return err
		}
		if err := p.parseValue(full, e.Value); err != nil {
			return err
		}
	}
	return nil
}

func (p *projParser) parseValue(full string, v any) error {
	if d, ok := v.(bson.D); ok && (len(d) == 0 || !strings.HasPrefix(d[0].Key, "$")) {
		if len(d) == 0 && !p.addFields {
			return mongoerr.New(mongoerr.ProjectEmptySubProjection, "Invalid $project :: caused by :: An empty sub-projection is not a valid value. Found empty object at path")
		}
		if len(d) > 0 {
			return p.parseLevel(d, full+".")
		}
	}
	leaf := &projChild{mode: leafComputed}
	if !p.addFields {
		if inc, ok := inclusionFlag(v); ok {
			leaf.mode = leafExclude
			if inc {
				leaf.mode = leafInclude
			}
		}
	}
	if err := p.check(full, leaf.mode); err != nil {
		return err
	}
	if leaf.mode == leafComputed {
		e, err := p.cc.compileExpr(v)
		if err != nil {
			return err
		}
		leaf.e = e
	}
	return p.root.insert(strings.Split(full, "."), leaf, full)
}

// inclusionFlag interprets bools and numbers in $project.
func inclusionFlag(v any) (include, ok bool) {
	switch v.(type) {
	case bool, int32, int64, float64, bson.Decimal128:
		return expr.Truthy(v), true
	}
	return false, false
}

func (p *projParser) check(full string, mode leafMode) error {
	switch {
	case mode == leafExclude && full == "_id":
		return nil
	case mode == leafExclude:
		if p.included != "" {
			return mongoerr.New(mongoerr.ProjectExclusionInInclusion, "Invalid $project :: caused by :: Cannot do exclusion on field %s in inclusion projection", full)
		}
		p.excluded = full
	case p.excluded != "" && mode == leafInclude:
		return mongoerr.New(mongoerr.ProjectInclusionInExclusion, "Invalid $project :: caused by :: Cannot do inclusion on field %s in exclusion projection", full)
	case p.excluded != "":
		return mongoerr.New(mongoerr.ProjectExclusionExpression, "Invalid $project :: caused by :: Cannot use expression other than $meta in exclusion projection")
	default:
		p.included = full
	}
	return nil
}
