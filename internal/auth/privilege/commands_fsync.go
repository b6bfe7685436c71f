package privilege

// The privileges of fsync, fsyncUnlock and the Stable API test commands.
// mongod checks the fsync and unlock actions on the cluster; relaydb has
// no such actions yet and checks shutdown, which the same built-in roles
// (hostManager, clusterAdmin, root) grant. TODO(#14): fsync and unlock
// actions for user-defined roles.
func init() {
	commands["fsync"] = onCluster(Shutdown)
	commands["fsyncUnlock"] = onCluster(Shutdown)
	commands["testVersion1"] = none
	commands["testVersion2"] = none
}
