package request

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
)

// ShardsvrGetStatsForBalancing is MongoDB 7.0's
// _shardsvrGetStatsForBalancing, which the balancer on the config server
// primary sends to each shard's primary: {..: 1, collections: ["db.c",
// ...], scaleFactor}. The reply is {stats: [{namespace, collSize}]};
// relaydb adds opsPerSec and loadSplitKey (load-based splitting). It
// writes nothing.
type ShardsvrGetStatsForBalancing struct {
	cmdspec.Cmd `cmd:"_shardsvrGetStatsForBalancing" roles:"primary,secondary"`
	Ignored     any    `cmd:",command"`
	Collections bson.A `cmd:"collections,required"`
	ScaleFactor *int64 `cmd:"scaleFactor"`
}

// AutoSplitVector is MongoDB's autoSplitVector, run on a shard against a
// collection: {autoSplitVector: "coll", keyPattern, min, max,
// maxChunkSizeBytes, limit}; the reply is {splitKeys: [...],
// continuation}. It writes nothing.
type AutoSplitVector struct {
	cmdspec.Cmd       `cmd:"autoSplitVector" roles:"primary,secondary"`
	Collection        cmdspec.CollName `cmd:",command"`
	KeyPattern        bson.D           `cmd:"keyPattern,required"`
	Min               bson.D           `cmd:"min,required"`
	Max               bson.D           `cmd:"max,required"`
	MaxChunkSizeBytes int64            `cmd:"maxChunkSizeBytes,required"`
	Limit             *int64           `cmd:"limit"`
}

// ConfigsvrBalancerStatus is MongoDB's _configsvrBalancerStatus, which a
// router's balancerStatus forwards to the config server primary, where
// the balancer runs: {mode, inBalancerRound, numBalancerRounds}. It
// writes nothing; a secondary answers with its own (idle) balancer.
type ConfigsvrBalancerStatus struct {
	cmdspec.Cmd `cmd:"_configsvrBalancerStatus" roles:"primary,secondary"`
	Ignored     any `cmd:",command"`
}

// ConfigsvrBalancerCollectionStatus is MongoDB's
// _configsvrBalancerCollectionStatus, which a router's
// balancerCollectionStatus forwards to the config server primary:
// {chunkSize (MB), balancerCompliant, firstComplianceViolation}. It
// writes nothing.
type ConfigsvrBalancerCollectionStatus struct {
	cmdspec.Cmd `cmd:"_configsvrBalancerCollectionStatus" roles:"primary,secondary"`
	NS          string `cmd:",command"`
}
