package command

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

func init() {
	register(&Command{Name: "create", Write: true, AfterWrite: always, Help: "creates a collection", Handler: createCmd, Fields: []string{
		"capped", "size", "max", "validator", "validationLevel", "validationAction", "viewOn", "pipeline",
		"collation", "timeseries", "clusteredIndex", "changeStreamPreAndPostImages", "storageEngine",
		"indexOptionDefaults", "idIndex", "expireAfterSeconds", "encryptedFields", "autoIndexId", "flags"}})
	register(&Command{Name: "drop", Write: true, AfterWrite: always, Help: "drops a collection", Handler: dropCmd})
	register(&Command{Name: "dropDatabase", Write: true, AfterWrite: always, Help: "drops the current database", Handler: dropDatabaseCmd})
	register(&Command{Name: "renameCollection", Write: true, AfterWrite: always, Help: "renames a collection", AdminOnly: true, Handler: renameCmd,
		Fields: []string{"to", "dropTarget", "stayTemp"}})
	register(&Command{Name: "collMod", Write: true, AfterWrite: always, Help: "modifies collection options (not supported yet)", Handler: collModCmd})
}

// unsupportedCreate lists create options relaydb refuses rather than ignores.
var unsupportedCreate = map[string]string{
	"capped": "capped collections", "viewOn": "views", "timeseries": "time-series collections",
	"clusteredIndex": "clustered collections", "validator": "document validation",
	"encryptedFields": "queryable encryption", "changeStreamPreAndPostImages": "change stream pre- and post-images",
}

func createCmd(c *Ctx) (bson.D, error) {
	coll, err := c.collArg()
	if err != nil {
		return nil, err
	}
	opts := bson.D{}
	for _, e := range c.Cmd[1:] {
		if what, bad := unsupportedCreate[e.Key]; bad {
			if b, isBool := e.Value.(bool); isBool && !b {
				continue
			}
			return nil, mongoerr.New(mongoerr.NotImplemented, "relaydb does not support %s yet (create option '%s')", what, e.Key)
		}
		if e.Key == "collation" {
			if err := anyCollation(e.Value); err != nil {
				return nil, err
			}
		}
		if !genericFields.get(e.Key) {
			opts = append(opts, e)
		}
	}
	if _, err := c.D.eng.Catalog().CreateCollection(c.DB, coll, opts); err != nil {
		return nil, err
	}
	return bson.D{}, nil
}

func dropCmd(c *Ctx) (bson.D, error) {
	coll, err := c.collArg()
	if err != nil {
		return nil, err
	}
	cat := c.D.eng.Catalog()
	col := cat.Collection(c.DB, coll)
	if col == nil {
		return bson.D{}, nil // MongoDB 7.0: dropping a missing collection succeeds
	}
	n := len(col.Indexes())
	if err := cat.DropCollection(c.DB, coll); err != nil && !mongoerr.Is(err, mongoerr.NamespaceNotFound) {
		return nil, err
	}
	return bson.D{{Key: "nIndexesWas", Value: int32(n)}, {Key: "ns", Value: c.ns(coll)}}, nil
}

func dropDatabaseCmd(c *Ctx) (bson.D, error) {
	if err := c.D.eng.Catalog().DropDatabase(c.DB); err != nil {
		return nil, err
	}
	return bson.D{{Key: "dropped", Value: c.DB}}, nil
}

func renameCmd(c *Ctx) (bson.D, error) {
	from, ok := c.Cmd[0].Value.(string)
	if !ok {
		return nil, c.typeErr("renameCollection", c.Cmd[0].Value, "string")
	}
	to, has, err := c.str("to")
	if err != nil {
		return nil, err
	}
	if !has {
		return nil, c.missing("to")
	}
	dropTarget, err := c.boolean("dropTarget")
	if err != nil {
		return nil, err
	}
	fromDB, fromColl, ok1 := strings.Cut(from, ".")
	toDB, toColl, ok2 := strings.Cut(to, ".")
	if !ok1 || !ok2 || fromColl == "" || toColl == "" {
		return nil, mongoerr.New(mongoerr.InvalidNamespace, "Invalid namespace specified '%s'", map[bool]string{true: to, false: from}[ok1])
	}
	if err := c.D.eng.Catalog().RenameCollection(fromDB, fromColl, toDB, toColl, dropTarget); err != nil {
		return nil, err
	}
	return bson.D{}, nil
}

func collModCmd(c *Ctx) (bson.D, error) {
	coll, err := c.collArg()
	if err != nil {
		return nil, err
	}
	if c.D.eng.Catalog().Collection(c.DB, coll) == nil {
		return nil, mongoerr.New(mongoerr.NamespaceNotFound, "ns does not exist: %s", c.ns(coll))
	}
	for _, e := range c.Cmd[1:] {
		if !genericFields.get(e.Key) {
			return nil, mongoerr.New(mongoerr.NotImplemented, "relaydb does not support collMod option '%s' yet", e.Key)
		}
	}
	return bson.D{}, nil
}
