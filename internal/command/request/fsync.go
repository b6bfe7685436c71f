package request

import "github.com/relaydb/relaydb/internal/cmdspec"

// Fsync is {fsync: 1, lock, fsyncLockAcquisitionTimeoutMillis}: flush
// every write to durable storage; lock: true also holds writes until
// fsyncUnlock (fsync.go). fsyncLockAcquisitionTimeoutMillis is accepted.
type Fsync struct {
	cmdspec.Cmd                       `cmd:"fsync" roles:"primary,secondary"`
	Value                             any `cmd:",command"`
	Lock                              any `cmd:"lock"`
	FsyncLockAcquisitionTimeoutMillis any `cmd:"fsyncLockAcquisitionTimeoutMillis"`
}

// FsyncUnlock is {fsyncUnlock: 1}.
type FsyncUnlock struct {
	cmdspec.Cmd `cmd:"fsyncUnlock" roles:"primary,secondary"`
	Value       any `cmd:",command"`
}

// TestVersion1 is mongod's test command in API Version 1.
type TestVersion1 struct {
	cmdspec.Cmd `cmd:"testVersion1" roles:"primary,secondary"`
	Value       any `cmd:",command"`
}

// TestVersion2 is mongod's test command outside API Version 1 (in a
// version 2 that does not exist): apiStrict refuses it.
type TestVersion2 struct {
	cmdspec.Cmd `cmd:"testVersion2" roles:"primary,secondary"`
	Value       any `cmd:",command"`
}
