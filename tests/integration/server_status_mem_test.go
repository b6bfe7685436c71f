package integration

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestServerStatusMemMatchesRSS: serverStatus.mem.resident is the
// process's resident set (MB), as the kernel counts it, not the Go
// runtime's Sys (which leaves out Pebble's memory and the binary's pages:
// 12 MB against an RSS of 30 MB at startup).
func TestServerStatusMemMatchesRSS(t *testing.T) {
	_, c := startServer(t)
	ctx := tctx(t, opTimeout)
	var st struct {
		PID int64 `bson:"pid"`
		Mem struct {
			Resident int64 `bson:"resident"`
			Virtual  int64 `bson:"virtual"`
		} `bson:"mem"`
	}
	if err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "serverStatus", Value: 1}}).Decode(&st); err != nil {
		t.Fatal(err)
	}
	rss := rssBytes(t, int(st.PID)) >> 20
	diff := st.Mem.Resident - rss
	if diff < 0 {
		diff = -diff
	}
	if limit := max(4, rss/5); diff > limit {
		t.Errorf("mem.resident %d MB, the process's RSS %d MB (allowed difference %d MB)", st.Mem.Resident, rss, limit)
	}
	if st.Mem.Virtual < st.Mem.Resident {
		t.Errorf("mem.virtual %d MB below mem.resident %d MB", st.Mem.Virtual, st.Mem.Resident)
	}
}
