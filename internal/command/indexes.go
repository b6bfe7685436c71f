package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

func init() {
	register(&Command{Name: "createIndexes", Write: true, AfterWrite: always, Help: "builds indexes", Handler: createIndexesCmd,
		Fields: []string{"indexes", "commitQuorum", "ignoreUnknownIndexOptions", "isTimeseriesNamespace"}})
	register(&Command{Name: "listIndexes", Read: true, Help: "lists a collection's indexes", Handler: listIndexesCmd,
		Fields: []string{"cursor", "includeBuildUUIDs", "includeIndexBuildInfo"}})
	register(&Command{Name: "dropIndexes", Write: true, AfterWrite: always, Help: "drops indexes", Handler: dropIndexesCmd, Fields: []string{"index", "isTimeseriesNamespace"}}, "deleteIndexes")
}

func createIndexesCmd(c *Ctx) (bson.D, error) {
	coll, err := c.collArg()
	if err != nil {
		return nil, err
	}
	specs, ok, err := c.docs("indexes")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, c.missing("indexes")
	}
	if len(specs) == 0 {
		return nil, mongoerr.New(mongoerr.BadValue, "Must specify at least one index to create")
	}
	cat := c.D.eng.Catalog()
	created := cat.Collection(c.DB, coll) == nil
	col, err := c.D.eng.CollectionForWrite(c.DB, coll)
	if err != nil {
		return nil, err
	}
	before, after, err := cat.CreateIndexes(col, specs)
	if err != nil {
		return nil, err
	}
	reply := bson.D{
		{Key: "numIndexesBefore", Value: int32(before)},
		{Key: "numIndexesAfter", Value: int32(after)},
		{Key: "createdCollectionAutomatically", Value: created},
	}
	if before == after {
		reply = append(reply, bson.E{Key: "note", Value: "all indexes already exist"})
	}
	return reply, nil
}

func listIndexesCmd(c *Ctx) (bson.D, error) {
	coll, err := c.collArg()
	if err != nil {
		return nil, err
	}
	col, err := c.collection(coll)
	if err != nil {
		return nil, err
	}
	cursorOpts, _, err := c.doc("cursor")
	if err != nil {
		return nil, err
	}
	var specs []bson.D
	for _, idx := range col.Indexes() {
		specs = append(specs, idx.Spec)
	}
	n, err := batchSizeFrom(cursorOpts)
	if err != nil {
		return nil, err
	}
	return c.firstBatch(exec.NewCursor(c.DB+".$cmd.listIndexes."+coll, exec.Docs(specs)), n, false)
}

func dropIndexesCmd(c *Ctx) (bson.D, error) {
	coll, err := c.collArg()
	if err != nil {
		return nil, err
	}
	col, err := c.collection(coll)
	if err != nil {
		return nil, err
	}
	v, ok := c.field("index")
	if !ok {
		return nil, c.missing("index")
	}
	cat := c.D.eng.Catalog()
	var names []string
	switch t := v.(type) {
	case string:
		names = []string{t}
	case bson.A:
		for _, x := range t {
			s, isStr := x.(string)
			if !isStr {
				return nil, mongoerr.New(mongoerr.TypeMismatch, "dropIndexes: index names must be strings")
			}
			names = append(names, s)
		}
	case bson.D:
		idx := cat.IndexByKey(col, t)
		if idx == nil {
			return nil, mongoerr.New(mongoerr.IndexNotFound, "can't find index with key: %v", t)
		}
		names = []string{idx.Name}
	default:
		return nil, c.typeErr("index", v, "[string, object, array]")
	}
	was := len(col.Indexes())
	if err := cat.DropIndexes(col, names); err != nil {
		return nil, err
	}
	return bson.D{{Key: "nIndexesWas", Value: int32(was)}}, nil
}
