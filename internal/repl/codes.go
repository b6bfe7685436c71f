package repl

import "github.com/relaydb/relaydb/internal/mongoerr"

// Error codes used by the coordinator (named in package mongoerr).
const (
	codeAlreadyInitialized                     = mongoerr.AlreadyInitialized
	codeNoReplicationEnabled                   = mongoerr.NoReplicationEnabled
	codeNewReplicaSetConfigurationIncompatible = mongoerr.NewReplicaSetConfigurationIncompatible
	codeNodeNotElectable                       = mongoerr.NodeNotElectable
	codeInconsistentReplicaSetNames            = mongoerr.InconsistentReplicaSetNames
	codeConfigurationInProgress                = mongoerr.ConfigurationInProgress
)
