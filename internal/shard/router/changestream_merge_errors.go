package router

import (
	"slices"

	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/netclient"
)

// streamResumable are the errors of a shard's stream after which a
// driver resumes the merged stream (with the router's last
// postBatchResumeToken): a shard's failover or network trouble, and its
// cursor lost with its primary (CursorNotFound), as MongoDB labels them.
var streamResumable = map[mongoerr.Code]bool{
	mongoerr.HostUnreachable: true, mongoerr.HostNotFound: true, mongoerr.NetworkTimeout: true,
	mongoerr.ShutdownInProgress: true, mongoerr.PrimarySteppedDown: true, mongoerr.ExceededTimeLimit: true,
	mongoerr.SocketException: true, mongoerr.NotWritablePrimary: true, mongoerr.InterruptedAtShutdown: true,
	mongoerr.InterruptedDueToReplStateChange: true, mongoerr.NotPrimaryNoSecondaryOk: true,
	mongoerr.NotPrimaryOrSecondary: true, mongoerr.StaleConfig: true, mongoerr.StaleEpoch: true,
	mongoerr.FailedToSatisfyReadPreference: true, mongoerr.RetryChangeStream: true, mongoerr.CursorNotFound: true,
}

// streamError is a shard's error as the merged stream's getMore reports
// it: labelled ResumableChangeStreamError when a driver should resume.
func streamError(err error) error {
	if netclient.IsNetworkError(err) {
		err = mongoerr.New(mongoerr.HostUnreachable, "a shard's change stream: %v", err)
	}
	me := mongoerr.From(err)
	if !streamResumable[me.Code] || slices.Contains(me.Labels, mongoerr.LabelResumableChangeStream) {
		return err
	}
	return me.WithLabels(mongoerr.LabelResumableChangeStream)
}
