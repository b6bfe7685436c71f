package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/auth/privilege"
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/query"
)

// listCollections lists the database's collections; under --auth a user
// without listCollections on the database (allowed in only with
// authorizedCollections and nameOnly) sees those it holds a privilege on.
func listCollections(c *Ctx, p *request.ListCollections) (bson.D, error) {
	nameOnly := p.NameOnly
	m, err := query.Compile(p.Filter)
	if err != nil {
		return nil, err
	}
	var rows []bson.D
	set, authOn := c.connPrivileges()
	all := !authOn || set.Allows([]privilege.Need{{DB: c.DB, Actions: privilege.ListCollections}})
	for _, col := range c.D.eng.Catalog().Collections(c.DB) {
		if !all && !set.AnyOn(c.DB, col.Name) {
			continue // authorizedCollections with nameOnly (privilege.Needs)
		}
		d := collectionInfo(col, nameOnly)
		if m.Match(d) {
			rows = append(rows, d)
		}
	}
	n, err := cursorBatchSize(p.Cursor)
	if err != nil {
		return nil, err
	}
	cur := exec.NewCursor(c.DB+".$cmd.listCollections", exec.Docs(rows))
	return c.firstBatch(cur, n, false)
}

func collectionInfo(col *catalog.Collection, nameOnly bool) bson.D {
	if isView(col) {
		return viewInfo(col, nameOnly)
	}
	d := bson.D{{Key: "name", Value: col.Name}, {Key: "type", Value: "collection"}}
	if nameOnly {
		return d
	}
	opts := col.Options
	if opts == nil {
		opts = bson.D{}
	}
	d = append(d,
		bson.E{Key: "options", Value: opts},
		bson.E{Key: "info", Value: bson.D{{Key: "readOnly", Value: false}, {Key: "uuid", Value: col.UUID}}})
	if clusteredIndex(col) != nil {
		return d // a clustered collection has no separate _id index
	}
	return append(d,
		bson.E{Key: "idIndex", Value: bson.D{{Key: "v", Value: int32(2)}, {Key: "key", Value: bson.D{{Key: "_id", Value: int32(1)}}}, {Key: "name", Value: "_id_"}}},
	)
}

// collection returns db.coll or NamespaceNotFound.
func (c *Ctx) collection(coll string) (*catalog.Collection, error) {
	col := c.D.eng.Catalog().Collection(c.DB, coll)
	if col == nil {
		return nil, mongoerr.New(mongoerr.NamespaceNotFound, "ns does not exist: %s", c.ns(coll))
	}
	return col, nil
}
