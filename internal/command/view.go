package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg"
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/cmdspec"
	"github.com/relaydb/relaydb/internal/collation"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Views. A view is a catalog collection whose options hold viewOn and
// pipeline (so it persists, replicates and drops as a collection does)
// and which never holds documents: every write to it is refused with
// CommandNotSupportedOnView, and reads run the view's pipeline over its
// source (find, count and distinct become aggregations, as in MongoDB).
//
// Invariant: a view's chain of viewOn ends at a collection (or a missing
// namespace) within maxViewDepth views; create and collMod refuse anything
// else.
//
// A read of a view over a sharded collection on a shard answers 169 for
// the router to re-run (view_sharded.go); explain plans the read on the
// view's collection (explain_view.go).
//
// TODO(#14): non-simple view collations, system.views.

// maxViewDepth is MongoDB's limit on views defined on views.
const maxViewDepth = exec.MaxViewDepth

// viewDef is a view resolved to its source collection: the pipelines of
// every view in the chain, the innermost first.
type viewDef struct {
	name     string // the view read
	source   string // the collection under the chain
	pipeline bson.A
	// collation is the view's default collation (view_collation.go), nil
	// when simple.
	collation *collation.Spec
}

// isView reports whether col is a view.
func isView(col *catalog.Collection) bool {
	return col != nil && viewOnOf(col.Options) != ""
}

func viewOnOf(opts bson.D) string {
	for _, o := range opts {
		if o.Key == "viewOn" {
			s, _ := o.Value.(string)
			return s
		}
	}
	return ""
}

func pipelineOf(opts bson.D) bson.A {
	for _, o := range opts {
		if o.Key == "pipeline" {
			a, _ := o.Value.(bson.A)
			return a
		}
	}
	return nil
}

// view resolves c.DB.coll when it is a view; nil when it is not.
func (c *Ctx) view(coll string) (*viewDef, error) {
	col := c.D.eng.Catalog().Collection(c.DB, coll)
	if !isView(col) {
		return nil, nil
	}
	def, err := c.resolveView(coll)
	if err != nil {
		return nil, err
	}
	return def, c.shardedView(def) // view_sharded.go
}

// resolveView walks the viewOn chain from db.name (exec.ResolveView).
func (c *Ctx) resolveView(name string) (*viewDef, error) {
	source, pipeline, err := c.D.eng.ResolveView(c.DB, name)
	if err != nil {
		return nil, err
	}
	var coll *collation.Spec
	if col := c.D.eng.Catalog().Collection(c.DB, name); isView(col) {
		coll = storedViewCollation(col.Options)
	}
	return &viewDef{name: name, source: source, pipeline: pipeline, collation: coll}, nil
}

// refuseView answers CommandNotSupportedOnView for a command that cannot
// run on a view (writes, index builds).
func (c *Ctx) refuseView(coll string) error {
	if c.timeseriesOf(coll) != nil {
		return mongoerr.New(mongoerr.NotImplemented, "relaydb does not support %s on time-series collections yet", c.Name)
	}
	if isView(c.D.eng.Catalog().Collection(c.DB, coll)) {
		return mongoerr.New(mongoerr.CommandNotSupportedOnView, "Namespace %s is a view, not a collection", c.ns(coll))
	}
	return nil
}

// viewCreateOptions are the options create accepts with viewOn.
var viewCreateOptions = map[string]bool{"viewOn": true, "pipeline": true, "collation": true}

// checkViewCreate checks create's options for a view named name: viewOn a
// collection name, pipeline an array of stages that compile and write
// nothing, no option a view cannot have, no cycle or too deep a chain.
func (c *Ctx) checkViewCreate(name string, opts bson.D) error {
	for _, o := range opts {
		if !viewCreateOptions[o.Key] {
			return mongoerr.New(mongoerr.InvalidOptions, "option '%s' is not supported on a view", o.Key)
		}
	}
	on, ok := lookupOpt(opts, "viewOn").(string)
	if !ok {
		return mongoerr.New(mongoerr.TypeMismatch, "'viewOn' option must be specified as a string")
	}
	if err := catalog.ValidateCollName(c.DB, on); err != nil {
		return err
	}
	if err := checkViewPipeline(c.DB, name, lookupOpt(opts, "pipeline")); err != nil {
		return err
	}
	if on == name {
		return mongoerr.New(mongoerr.GraphContainsCycle, "View cycle detected: %s", c.ns(name))
	}
	def, err := c.resolveView(on)
	if err != nil {
		return err
	}
	if def.source == name {
		return mongoerr.New(mongoerr.GraphContainsCycle, "View cycle detected: %s", c.ns(name))
	}
	return nil
}

func lookupOpt(opts bson.D, key string) any {
	for _, o := range opts {
		if o.Key == key {
			return o.Value
		}
	}
	return nil
}

func checkViewPipeline(db, name string, v any) error {
	if v == nil {
		return nil
	}
	p, ok := v.(bson.A)
	if !ok {
		return mongoerr.New(mongoerr.TypeMismatch, "'pipeline' option must be specified as an array")
	}
	for i, s := range p {
		st, ok := s.(bson.D)
		if !ok || len(st) != 1 {
			return mongoerr.New(mongoerr.TypeMismatch, "View pipeline stages must be objects with one field")
		}
		switch st[0].Key {
		case "$out", "$merge", "$changeStream":
			return mongoerr.New(mongoerr.OptionNotSupportedOnView, "The aggregation stage %s in location %d of the pipeline cannot be used in the view definition of %s.%s because it writes to disk",
				st[0].Key, i, db, name)
		}
	}
	_, err := agg.Compile(p, agg.Env{DB: db})
	return err
}

// viewInfo is the listCollections entry of a view. Unlike MongoDB's it
// shows info.uuid: initial sync gives the view the same UUID, so that later
// oplog entries find it.
func viewInfo(col *catalog.Collection, nameOnly bool) bson.D {
	if lookupOpt(col.Options, "timeseries") != nil {
		return timeseriesInfo(col.Name, col.Options, col.UUID, nameOnly)
	}
	d := bson.D{{Key: "name", Value: col.Name}, {Key: "type", Value: "view"}}
	if nameOnly {
		return d
	}
	pipeline := pipelineOf(col.Options)
	if pipeline == nil {
		pipeline = bson.A{}
	}
	return append(d,
		bson.E{Key: "options", Value: withViewCollation(bson.D{{Key: "viewOn", Value: viewOnOf(col.Options)}, {Key: "pipeline", Value: pipeline}}, storedViewCollation(col.Options))},
		bson.E{Key: "info", Value: bson.D{{Key: "readOnly", Value: true}, {Key: "uuid", Value: col.UUID}}})
}

// createView creates the view c.DB.name from create's options.
func createView(c *Ctx, name string) (bson.D, error) {
	opts := bson.D{}
	for _, e := range c.Cmd[1:] {
		if !cmdspec.IsGeneric(e.Key) {
			opts = append(opts, e)
		}
	}
	if err := c.checkViewCreate(name, opts); err != nil {
		return nil, err
	}
	spec, err := c.viewCreateCollation(opts) // view_collation.go
	if err != nil {
		return nil, err
	}
	pipeline := lookupOpt(opts, "pipeline")
	if pipeline == nil {
		pipeline = bson.A{}
	}
	// viewOn first: exec.CollectionForWrite recognises a view by it.
	stored := bson.D{{Key: "viewOn", Value: lookupOpt(opts, "viewOn")}, {Key: "pipeline", Value: pipeline}}
	stored = withViewCollation(stored, spec)
	if _, err := c.D.eng.Catalog().CreateCollection(c.DB, name, stored); err != nil {
		return nil, err
	}
	return bson.D{}, nil
}

// collModView redefines the view name (collMod with viewOn and pipeline,
// both required as MongoDB's), refusing a definition that would close a
// cycle through name.
func (c *Ctx) collModView(name string, old, changes bson.D) (bson.D, error) {
	for _, e := range changes {
		if e.Key != "viewOn" && e.Key != "pipeline" {
			return nil, mongoerr.New(mongoerr.InvalidOptions, "option '%s' is not supported on a view", e.Key)
		}
	}
	if lookupOpt(changes, "viewOn") == nil || lookupOpt(changes, "pipeline") == nil {
		return nil, mongoerr.New(mongoerr.InvalidOptions, "must specify both 'viewOn' and 'pipeline' when modifying a view")
	}
	if err := c.checkViewCreate(name, changes); err != nil {
		return nil, err
	}
	if err := c.checkNoCycleThrough(name, lookupOpt(changes, "viewOn").(string)); err != nil {
		return nil, err
	}
	spec := storedViewCollation(old)
	if err := c.checkViewOnCollation(lookupOpt(changes, "viewOn").(string), spec); err != nil {
		return nil, err
	}
	stored := bson.D{{Key: "viewOn", Value: lookupOpt(changes, "viewOn")}, {Key: "pipeline", Value: lookupOpt(changes, "pipeline")}}
	stored = withViewCollation(stored, spec)
	if _, err := c.D.eng.Catalog().CollMod(c.DB, name, stored); err != nil {
		return nil, err
	}
	return bson.D{}, nil
}

// checkNoCycleThrough refuses a viewOn chain from on that reaches name.
func (c *Ctx) checkNoCycleThrough(name, on string) error {
	cat := c.D.eng.Catalog()
	for depth := 0; depth <= maxViewDepth; depth++ {
		if on == name {
			return mongoerr.New(mongoerr.GraphContainsCycle, "View cycle detected: %s", c.ns(name))
		}
		col := cat.Collection(c.DB, on)
		if !isView(col) {
			return nil
		}
		on = viewOnOf(col.Options)
	}
	return mongoerr.New(mongoerr.ViewDepthLimitExceeded, "View depth too deep or view cycle detected. Maximum depth is %d", maxViewDepth)
}
