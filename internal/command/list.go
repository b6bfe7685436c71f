package command

import (
	"sort"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/query"
)

func init() {
	register(&Command{Name: "listDatabases", Help: "lists databases", AdminOnly: true, Handler: listDatabasesCmd,
		Fields: []string{"filter", "nameOnly", "authorizedDatabases"}})
	register(&Command{Name: "listCollections", Read: true, Help: "lists the collections of a database", Handler: listCollectionsCmd,
		Fields: []string{"filter", "nameOnly", "authorizedCollections", "cursor", "includePendingDrops"}})
}

func listDatabasesCmd(c *Ctx) (bson.D, error) {
	filter, _, err := c.doc("filter")
	if err != nil {
		return nil, err
	}
	nameOnly, err := c.boolean("nameOnly")
	if err != nil {
		return nil, err
	}
	m, err := query.Compile(filter)
	if err != nil {
		return nil, err
	}
	cat := c.D.eng.Catalog()
	dbs := bson.A{}
	var total int64
	for _, name := range withSystemDBs(cat.Databases()) {
		var size int64
		for _, col := range cat.Collections(name) {
			size += col.DataSize()
		}
		if name == "local" {
			size += cat.Oplog().SizeBytes()
		}
		d := bson.D{{Key: "name", Value: name}}
		if !nameOnly {
			d = append(d, bson.E{Key: "sizeOnDisk", Value: size}, bson.E{Key: "empty", Value: size == 0 && name != "admin" && name != "local"})
		}
		if m.Match(d) {
			dbs = append(dbs, d)
			total += size
		}
	}
	if nameOnly {
		return bson.D{{Key: "databases", Value: dbs}}, nil
	}
	return bson.D{{Key: "databases", Value: dbs}, {Key: "totalSize", Value: total}, {Key: "totalSizeMb", Value: total >> 20}}, nil
}

func listCollectionsCmd(c *Ctx) (bson.D, error) {
	filter, _, err := c.doc("filter")
	if err != nil {
		return nil, err
	}
	nameOnly, err := c.boolean("nameOnly")
	if err != nil {
		return nil, err
	}
	cursorOpts, _, err := c.doc("cursor")
	if err != nil {
		return nil, err
	}
	m, err := query.Compile(filter)
	if err != nil {
		return nil, err
	}
	var rows []bson.D
	for _, col := range c.D.eng.Catalog().Collections(c.DB) {
		d := collectionInfo(col, nameOnly)
		if m.Match(d) {
			rows = append(rows, d)
		}
	}
	n, err := batchSizeFrom(cursorOpts)
	if err != nil {
		return nil, err
	}
	cur := exec.NewCursor(c.DB+".$cmd.listCollections", exec.Docs(rows))
	return c.firstBatch(cur, n, false)
}

func collectionInfo(col *catalog.Collection, nameOnly bool) bson.D {
	d := bson.D{{Key: "name", Value: col.Name}, {Key: "type", Value: "collection"}}
	if nameOnly {
		return d
	}
	opts := col.Options
	if opts == nil {
		opts = bson.D{}
	}
	return append(d,
		bson.E{Key: "options", Value: opts},
		bson.E{Key: "info", Value: bson.D{{Key: "readOnly", Value: false}, {Key: "uuid", Value: col.UUID}}},
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

// withSystemDBs adds admin and local, which a MongoDB node always lists
// (admin holds system.version, local the oplog), in sorted order.
func withSystemDBs(dbs []string) []string {
	seen := map[string]bool{}
	for _, d := range dbs {
		seen[d] = true
	}
	for _, d := range []string{"admin", "local"} {
		if !seen[d] {
			dbs = append(dbs, d)
		}
	}
	sort.Strings(dbs)
	return dbs
}
