package privilege

// backupColls are backup's and restore's privileges on the system
// collections mongodump and mongorestore read and write, as MongoDB's:
// system.js of every database, the users, roles and version documents of
// admin, and config.settings.
func backupColls(role string) []Privilege {
	js := Resource{Coll: "system.js"}
	auth := []Resource{{DB: "admin", Coll: "system.users"}, {DB: "admin", Coll: "system.roles"}}
	switch role {
	case "backup":
		out := []Privilege{{js, Find | ListIndexes | CollStats}, {Resource{DB: "admin", Coll: "system.version"}, Find}, {Resource{DB: "config", Coll: "settings"}, Find}}
		for _, r := range auth {
			out = append(out, Privilege{r, Find | ListIndexes | CollStats})
		}
		return out
	case "restore":
		write := Find | Insert | Update | Remove | CreateCollection | DropCollection | CreateIndex | CollMod
		out := []Privilege{{js, write}}
		for _, r := range auth {
			out = append(out, Privilege{r, write})
		}
		return out
	}
	return nil
}
