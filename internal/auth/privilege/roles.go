package privilege

// Resource is what a privilege applies to: a collection, every non-system
// collection of a database (Coll ""), of every database (DB "" too), the
// cluster, or anything (Any, root's).
type Resource struct {
	DB, Coll string
	Cluster  bool
	Any      bool
}

// Privilege is a resource and the actions allowed on it.
type Privilege struct {
	Resource Resource
	Actions  Action
}

// Role names a role and the database it is defined on.
type Role struct{ Name, DB string }

const (
	readActions   = Find | ListCollections | ListIndexes | CollStats | DBStats | KillCursors | ChangeStream
	writeActions  = readActions | Insert | Update | Remove | CreateCollection | DropCollection | CreateIndex | DropIndex | RenameCollection
	dbAdminActs   = CollStats | DBStats | ListCollections | ListIndexes | CreateCollection | DropCollection | CreateIndex | DropIndex | DropDatabase | CollMod | RenameCollection
	userAdminActs = CreateUser | DropUser | ViewUser | GrantRole | RevokeRole | ChangePassword | CreateRole | DropRole | ViewRole | ChangeCustomData |
		SetAuthenticationRestriction
	monitorActs  = ServerStatus | HostInfo | GetCmdLineOpts | GetLog | GetParameter | ReplSetGetStatus | ReplSetGetConfig | ListDatabases | GetIPAllowlist | Inprog
	managerActs  = ReplSetConfigure | ReplSetGetStatus | ReplSetGetConfig | ReplSetStateChange | CleanupOrphaned | SetIPAllowlist | GetIPAllowlist
	hostActs     = Shutdown | SetParameter | KillAnySession | FlushRouterConfig | ConnPoolStats | Inprog | Killop
	shardMonitor = ListShards | GetShardVersion | CheckMetadataConsistency | ConnPoolStats
	shardManager = AddShard | RemoveShard | ListShards | FlushRouterConfig | GetShardVersion | CheckMetadataConsistency
	shardDBActs  = EnableSharding | MoveChunk | SplitChunk | GetShardVersion
	allActions   = Internal - 1 // every action but Internal
)

// dbRole is a role defined per database: its actions on the database's
// collections (the AnyDatabase form applies them to every database).
var dbRole = map[string]Action{
	"read":      readActions,
	"readWrite": writeActions,
	"dbAdmin":   dbAdminActs,
	"userAdmin": userAdminActs,
	"dbOwner":   writeActions | dbAdminActs | userAdminActs,
}

// anyDBRole maps the admin-only AnyDatabase roles to their per-database form.
var anyDBRole = map[string]string{
	"readAnyDatabase":      "read",
	"readWriteAnyDatabase": "readWrite",
	"userAdminAnyDatabase": "userAdmin",
	"dbAdminAnyDatabase":   "dbAdmin",
}

// clusterRole are the admin-only roles on the cluster resource, with the
// actions they also hold on every database.
var clusterRole = map[string][2]Action{
	"clusterMonitor": {monitorActs | shardMonitor, CollStats | DBStats | ListIndexes | ListCollections | GetShardVersion},
	"clusterManager": {managerActs | ListDatabases | shardManager | shardDBActs, shardDBActs},
	"hostManager":    {hostActs, KillCursors | KillAnyCursor},
	"clusterAdmin":   {monitorActs | managerActs | hostActs | shardMonitor | shardManager | shardDBActs, CollStats | DBStats | ListIndexes | ListCollections | KillCursors | KillAnyCursor | DropDatabase | shardDBActs},
	"backup":         {ListDatabases | ServerStatus, Find | ListCollections | ListIndexes | CollStats | DBStats},
	"restore":        {ListDatabases, writeActions | userAdminActs},
}

// Privileges returns a built-in role's privileges; ok is false for any
// other role (user-defined roles: ResolveRoles; backup and restore's
// system collections: roles_backup.go).
func Privileges(r Role) (privs []Privilege, ok bool) {
	if a, ok := dbRole[r.Name]; ok {
		return append([]Privilege{{Resource{DB: r.DB}, a}}, systemColls(r)...), true
	}
	if r.DB != "admin" {
		return nil, false
	}
	if base, ok := anyDBRole[r.Name]; ok {
		return []Privilege{{Resource{}, dbRole[base]}, {Resource{Cluster: true}, ListDatabases}}, true
	}
	if a, ok := clusterRole[r.Name]; ok {
		return append([]Privilege{{Resource{Cluster: true}, a[0]}, {Resource{}, a[1]}}, append(balancerSettings(r.Name), backupColls(r.Name)...)...), true
	}
	if r.Name == "root" {
		return []Privilege{{Resource{Any: true}, allActions}}, true
	}
	return nil, false
}

// balancerSettings is the cluster roles' access to config.settings, which
// balancerStart/Stop (update) and balancerStatus (find) check, as MongoDB.
func balancerSettings(role string) []Privilege {
	settings := Resource{DB: "config", Coll: "settings"}
	switch role {
	case "clusterManager", "clusterAdmin":
		return []Privilege{{settings, Find | Insert | Update | Remove}}
	case "clusterMonitor":
		return []Privilege{{settings, Find}}
	}
	return nil
}

// systemColls are a database role's privileges on system collections, as
// MongoDB's: the read roles on system.js, dbAdmin on system.profile.
func systemColls(r Role) []Privilege {
	var out []Privilege
	if a := dbRole[r.Name] & writeActions; r.Name != "dbAdmin" && r.Name != "userAdmin" {
		out = append(out, Privilege{Resource{DB: r.DB, Coll: "system.js"}, a})
	}
	if r.Name == "dbAdmin" || r.Name == "dbOwner" {
		out = append(out, Privilege{Resource{DB: r.DB, Coll: "system.profile"}, Find | CollStats | CreateCollection | DropCollection})
	}
	return out
}

// Exists reports whether r names a built-in role.
func Exists(r Role) bool { _, ok := Privileges(r); return ok }
