package request

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
)

// ShardsvrMoveRange is MongoDB 7.0's _shardsvrMoveRange, sent to the
// donor shard's primary (by a router's moveChunk/moveRange, or by the
// balancer): move the chunk [min, max) of the namespace to toShard and
// answer when the migration is over. relaydb moves whole chunks: the
// router splits first when the range is part of one. epoch,
// collectionTimestamp, maxChunkSizeBytes, forceJumbo, secondaryThrottle
// and fromShard are accepted as MongoDB's routers send them.
type ShardsvrMoveRange struct {
	cmdspec.Cmd         `cmd:"_shardsvrMoveRange" roles:"primary"`
	NS                  string `cmd:",command"`
	ToShard             string `cmd:"toShard,required"`
	Min                 bson.D `cmd:"min,required"`
	Max                 bson.D `cmd:"max,required"`
	WaitForDelete       bool   `cmd:"waitForDelete"`
	Epoch               any    `cmd:"epoch"`
	CollectionTimestamp any    `cmd:"collectionTimestamp"`
	MaxChunkSizeBytes   any    `cmd:"maxChunkSizeBytes"`
	ForceJumbo          any    `cmd:"forceJumbo"`
	SecondaryThrottle   any    `cmd:"secondaryThrottle"`
	FromShard           any    `cmd:"fromShard"`
}

// MigrateClone is MongoDB's _migrateClone: the recipient pulls the next
// batch of the range's documents from the donor's primary. It writes
// nothing, so it is not a write command (as _transferMods and
// _recvChunkStatus): the handler refuses a secondary (NotWritablePrimary),
// where no migration runs.
type MigrateClone struct {
	cmdspec.Cmd `cmd:"_migrateClone" roles:"primary,secondary"`
	Ignored     any    `cmd:",command"`
	SessionID   string `cmd:"sessionId,required"`
}

// TransferMods is MongoDB's _transferMods: the recipient pulls the
// changes to the range since its last call; final (relaydb's) is set
// once the donor holds its critical section.
type TransferMods struct {
	cmdspec.Cmd `cmd:"_transferMods" roles:"primary,secondary"`
	Ignored     any    `cmd:",command"`
	SessionID   string `cmd:"sessionId,required"`
	Final       bool   `cmd:"final"`
}

// RecvChunkStart is MongoDB's _recvChunkStart, sent by the donor to the
// recipient's primary: start cloning [min, max) of the namespace from
// the donor (from: its connection string).
type RecvChunkStart struct {
	cmdspec.Cmd     `cmd:"_recvChunkStart" roles:"primary"`
	NS              string   `cmd:",command"`
	SessionID       string   `cmd:"sessionId,required"`
	From            string   `cmd:"from,required"`
	FromShardName   string   `cmd:"fromShardName"`
	ToShardName     string   `cmd:"toShardName"`
	Min             bson.D   `cmd:"min,required"`
	Max             bson.D   `cmd:"max,required"`
	ShardKeyPattern bson.D   `cmd:"shardKeyPattern,required"`
	Indexes         []bson.D `cmd:"indexes"`
	// CollectionOptions (relaydb's) are the donor's collection options,
	// for a recipient that creates the collection (MongoDB's recipient
	// reads them with listCollections).
	CollectionOptions bson.D `cmd:"collectionOptions"`
}

// RecvChunkStatus is MongoDB's _recvChunkStatus: the recipient's clone
// state and counts.
type RecvChunkStatus struct {
	cmdspec.Cmd `cmd:"_recvChunkStatus" roles:"primary,secondary"`
	Ignored     any    `cmd:",command"`
	SessionID   string `cmd:"sessionId,required"`
}

// RecvChunkCommit is MongoDB's _recvChunkCommit: the donor holds its
// critical section; the recipient applies the last changes.
type RecvChunkCommit struct {
	cmdspec.Cmd `cmd:"_recvChunkCommit" roles:"primary"`
	Ignored     any    `cmd:",command"`
	SessionID   string `cmd:"sessionId,required"`
}

// RecvChunkAbort is MongoDB's _recvChunkAbort: stop the clone and delete
// what it wrote.
type RecvChunkAbort struct {
	cmdspec.Cmd `cmd:"_recvChunkAbort" roles:"primary"`
	NS          string `cmd:",command"`
	SessionID   string `cmd:"sessionId,required"`
	Min         bson.D `cmd:"min,required"`
	Max         bson.D `cmd:"max,required"`
}
