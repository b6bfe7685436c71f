package privilege

import "go.mongodb.org/mongo-driver/v2/bson"

// listDatabases needs listDatabases on the cluster only with
// authorizedDatabases: false; otherwise anyone may run it and sees the
// databases it holds a privilege on (Set.AnyOnDB), as MongoDB.
func listDatabases(_ string, cmd bson.D) []Need {
	if b, ok := field(cmd, "authorizedDatabases").(bool); ok && !b {
		return []Need{{Cluster: true, Actions: ListDatabases}}
	}
	return nil
}

// listCollections needs listCollections on the database unless it asks
// for authorizedCollections with nameOnly: then anyone may run it and sees
// the collections it holds a privilege on (Set.AnyOn), as MongoDB.
func listCollections(db string, cmd bson.D) []Need {
	auth, _ := field(cmd, "authorizedCollections").(bool)
	nameOnly, _ := field(cmd, "nameOnly").(bool)
	if auth && nameOnly {
		return nil
	}
	return []Need{{DB: db, Actions: ListCollections}}
}

// AnyOnDB reports whether s holds any privilege on a resource of db.
func (s Set) AnyOnDB(db string) bool {
	for _, p := range s {
		if p.Resource.Any || !p.Resource.Cluster && (p.Resource.DB == "" || p.Resource.DB == db) {
			return true
		}
	}
	return false
}

// AnyOn reports whether s holds any privilege on db.coll.
func (s Set) AnyOn(db, coll string) bool {
	for _, p := range s {
		if p.Resource.covers(Need{DB: db, Coll: coll}) {
			return true
		}
	}
	return false
}
