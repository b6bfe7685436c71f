package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Create is the create command. Its options are kept as sent (the catalog
// stores them for listCollections); unsupportedCreate lists the ones
// relaydb refuses.
type Create struct {
	cmdspec.Cmd                  `cmd:"create" roles:"primary,router"`
	Collection                   cmdspec.CollName `cmd:",command"`
	Capped                       any              `cmd:"capped"`
	Size                         any              `cmd:"size"`
	Max                          any              `cmd:"max"`
	Validator                    any              `cmd:"validator"`
	ValidationLevel              any              `cmd:"validationLevel"`
	ValidationAction             any              `cmd:"validationAction"`
	ViewOn                       any              `cmd:"viewOn"`
	Pipeline                     any              `cmd:"pipeline"`
	Collation                    any              `cmd:"collation"`
	Timeseries                   any              `cmd:"timeseries"`
	ClusteredIndex               any              `cmd:"clusteredIndex"`
	ChangeStreamPreAndPostImages any              `cmd:"changeStreamPreAndPostImages"`
	StorageEngine                any              `cmd:"storageEngine"`
	IndexOptionDefaults          any              `cmd:"indexOptionDefaults"`
	IDIndex                      any              `cmd:"idIndex"`
	ExpireAfterSeconds           any              `cmd:"expireAfterSeconds"`
	EncryptedFields              any              `cmd:"encryptedFields"`
	AutoIndexID                  any              `cmd:"autoIndexId"`
	Flags                        any              `cmd:"flags"`
}

// unsupportedCreate lists create options relaydb refuses rather than ignores.
var unsupportedCreate = map[string]string{
	"capped": "capped collections", "viewOn": "views", "timeseries": "time-series collections",
	"clusteredIndex": "clustered collections", "validator": "document validation",
	"encryptedFields": "queryable encryption", "changeStreamPreAndPostImages": "change stream pre- and post-images",
}

func create(c *Ctx, p *Create) (bson.D, error) {
	coll := string(p.Collection)
	opts := bson.D{}
	for _, e := range c.Cmd[1:] {
		if what, bad := unsupportedCreate[e.Key]; bad {
			if b, isBool := e.Value.(bool); isBool && !b {
				continue
			}
			return nil, mongoerr.New(mongoerr.NotImplemented, "relaydb does not support %s yet (create option '%s')", what, e.Key)
		}
		if e.Key == "collation" {
			var col cmdspec.Collation
			if err := col.DecodeField("", e.Value); err != nil {
				return nil, err
			}
			if err := checkCollation(col); err != nil {
				return nil, err
			}
		}
		if !cmdspec.IsGeneric(e.Key) {
			opts = append(opts, e)
		}
	}
	if _, err := c.D.eng.Catalog().CreateCollection(c.DB, coll, opts); err != nil {
		return nil, err
	}
	return bson.D{}, nil
}
