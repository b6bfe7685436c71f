package command

import (
	"sort"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/query"
)

func listDatabases(c *Ctx, p *request.ListDatabases) (bson.D, error) {
	nameOnly := p.NameOnly
	m, err := query.Compile(p.Filter)
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
