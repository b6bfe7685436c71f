package privilege

import "sort"

// actionNames are MongoDB's names of the actions relaydb checks.
var actionNames = map[Action]string{
	Find: "find", Insert: "insert", Update: "update", Remove: "remove", CreateIndex: "createIndex",
	DropIndex: "dropIndex", CreateCollection: "createCollection", DropCollection: "dropCollection",
	DropDatabase: "dropDatabase", RenameCollection: "renameCollectionSameDB", CollMod: "collMod",
	ListCollections: "listCollections", ListIndexes: "listIndexes", ListDatabases: "listDatabases",
	CollStats: "collStats", DBStats: "dbStats", KillCursors: "killCursors", CreateUser: "createUser",
	DropUser: "dropUser", ViewUser: "viewUser", GrantRole: "grantRole", RevokeRole: "revokeRole",
	ChangePassword: "changePassword", ServerStatus: "serverStatus", HostInfo: "hostInfo",
	GetCmdLineOpts: "getCmdLineOpts", GetLog: "getLog", GetParameter: "getParameter",
	SetParameter: "setParameter", ReplSetGetStatus: "replSetGetStatus", ReplSetGetConfig: "replSetGetConfig",
	ReplSetConfigure: "replSetConfigure", ReplSetStateChange: "replSetStateChange", Shutdown: "shutdown",
	KillAnySession: "killAnySession", CleanupOrphaned: "cleanupOrphaned", AddShard: "addShard",
	RemoveShard: "removeShard", EnableSharding: "enableSharding", MoveChunk: "moveChunk",
	SplitChunk: "splitChunk", ListShards: "listShards", FlushRouterConfig: "flushRouterConfig",
	GetShardVersion: "getShardVersion", ConnPoolStats: "connPoolStats",
	Inprog: "inprog", Killop: "killop", ChangeStream: "changeStream",
	CheckMetadataConsistency: "checkMetadataConsistency", CreateRole: "createRole", DropRole: "dropRole",
	ViewRole: "viewRole", ChangeCustomData: "changeCustomData", ChangeOwnPassword: "changeOwnPassword",
	ChangeOwnCustomData: "changeOwnCustomData", SetIPAllowlist: "setIPAllowlist",
	GetIPAllowlist: "getIPAllowlist", KillAnyCursor: "killAnyCursor", Internal: "internal",
	SetAuthenticationRestriction: "setAuthenticationRestriction",
}

// otherActions are MongoDB action names relaydb accepts in a user-defined
// role and shows back, but checks nowhere: they grant nothing extra.
var otherActions = []string{
	"analyzeShardKey", "anyAction", "appendOplogNote", "applicationMessage", "applyOps", "auditConfigure",
	"authSchemaUpgrade", "bypassDocumentValidation", "bypassWriteBlockingMode",
	"checkFreeMonitoringStatus", "clearJumboFlag", "closeAllDatabases", "compact",
	"compactStructuredEncryptionData", "configureQueryAnalyzer", "connPoolSync", "convertToCapped",
	"cpuProfiler", "createSearchIndexes", "dbCheck", "dbHash", "dropConnections", "dropSearchIndex",
	"enableProfiler", "exportCollection", "forceUUID", "fsync", "getClusterParameter",
	"getDatabaseVersion", "getDefaultRWConcern", "getShardMap", "impersonate", "importCollection",
	"indexStats", "inprog", "invalidateUserCache", "killop", "listCachedAndActiveUsers",
	"listSearchIndexes", "listSessions", "logRotate", "netstat", "operationMetrics",
	"planCacheIndexFilter", "planCacheRead", "planCacheWrite", "reIndex", "refineCollectionShardKey",
	"renameCollection", "replSetHeartbeat", "replSetResizeOplog", "reshardCollection", "resync",
	"rotateCertificates", "serverStatus", "setClusterParameter",
	"setDefaultRWConcern", "setFeatureCompatibilityVersion", "setFreeMonitoring",
	"setUserWriteBlockMode", "shardCollection", "shardingState", "splitVector", "storageDetails", "top",
	"touch", "trafficRecord", "unlock", "updateSearchIndex", "useUUID", "validate",
}

var (
	byName    = map[string]Action{}
	otherName = map[string]bool{}
)

func init() {
	for a, n := range actionNames {
		byName[n] = a
	}
	for _, n := range otherActions {
		if _, ok := byName[n]; !ok {
			otherName[n] = true
		}
	}
}

// ParseAction returns the action a MongoDB action name stands for (0 for a
// name relaydb accepts but does not check); ok is false for an unknown name.
func ParseAction(name string) (a Action, ok bool) {
	if a, ok := byName[name]; ok && a != Internal {
		return a, true
	}
	return 0, otherName[name]
}

// Names returns the MongoDB names of a's actions, sorted.
func (a Action) Names() []string {
	var out []string
	for bit := Action(1); bit != 0 && bit <= a; bit <<= 1 {
		if a&bit != 0 {
			if n, ok := actionNames[bit]; ok {
				out = append(out, n)
			}
		}
	}
	sort.Strings(out)
	return out
}
