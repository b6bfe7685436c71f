package command

import (
	"sort"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/auth/privilege"
	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/query"
)

// listDatabases lists the databases; under --auth a user without the
// listDatabases action sees only those it holds a privilege on (MongoDB's
// authorizedDatabases; privilege.Needs refuses authorizedDatabases: false).
func listDatabases(c *Ctx, p *request.ListDatabases) (bson.D, error) {
	nameOnly := p.NameOnly
	m, err := query.Compile(p.Filter)
	if err != nil {
		return nil, err
	}
	cat := c.D.eng.Catalog()
	dbs := bson.A{}
	var total int64
	set, authOn := c.connPrivileges()
	all := !authOn || set.Allows([]privilege.Need{{Cluster: true, Actions: privilege.ListDatabases}})
	for _, name := range withSystemDBs(cat.Databases()) {
		if !all && !set.AnyOnDB(name) {
			continue // authorizedDatabases: what the user may see
		}
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
