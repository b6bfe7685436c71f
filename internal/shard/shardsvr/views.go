package shardsvr

import (
	"context"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// IsSharded reports whether ns is a sharded collection as this shard's
// filtering metadata says (loaded from the config servers on first use,
// reloaded after a critical section on ns: shardCollection holds one on
// the database's primary shard, where a view's reads are sent). A member
// that is not yet a shard (no shardIdentity) answers false: it serves its
// own documents, as before addShard (command.ShardedChecker).
func (s *State) IsSharded(ctx context.Context, ns string) (bool, error) {
	if _, _, err := s.identity(ctx); err != nil {
		if mongoerr.Is(err, ShardingStateNotInitialized) {
			return false, nil
		}
		return false, err
	}
	meta, err := s.Metadata(ctx, ns)
	if err != nil {
		return false, err
	}
	return meta.IsSharded(), nil
}
