package integration

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/tests/harness"
)

// TestWiredTigerCacheSizeGB (issue #15 item 4): mongod's
// --wiredTigerCacheSizeGB is accepted, sizes relaydb's caches, and
// serverStatus.wiredTiger.cache reports it as mongod does.
func TestWiredTigerCacheSizeGB(t *testing.T) {
	_, c := startServer(t, harness.WithArgs("--wiredTigerCacheSizeGB", "0.5"))
	ctx := tctx(t, opTimeout)
	coll := freshColl(t, c, "cachesize")
	for i := range 50 {
		if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: i}, {Key: "pad", Value: strings.Repeat("x", 500)}}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 50 {
		if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: i}}).Err(); err != nil {
			t.Fatal(err)
		}
	}
	var st struct {
		WiredTiger struct {
			Cache struct {
				Max  int64 `bson:"maximum bytes configured"`
				Used int64 `bson:"bytes currently in the cache"`
			} `bson:"cache"`
		} `bson:"wiredTiger"`
	}
	if err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "serverStatus", Value: 1}}).Decode(&st); err != nil {
		t.Fatal(err)
	}
	if got := st.WiredTiger.Cache.Max; got != 512<<20 {
		t.Errorf("maximum bytes configured = %d, want %d (0.5 GB)", got, 512<<20)
	}
	if used := st.WiredTiger.Cache.Used; used <= 0 || used > st.WiredTiger.Cache.Max {
		t.Errorf("bytes currently in the cache = %d after 50 reads, want within (0, %d]", used, st.WiredTiger.Cache.Max)
	}
	var opts struct {
		Parsed struct {
			Storage struct {
				WiredTiger struct {
					EngineConfig struct {
						CacheSizeGB float64 `bson:"cacheSizeGB"`
					} `bson:"engineConfig"`
				} `bson:"wiredTiger"`
			} `bson:"storage"`
		} `bson:"parsed"`
	}
	if err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "getCmdLineOpts", Value: 1}}).Decode(&opts); err != nil {
		t.Fatal(err)
	}
	if got := opts.Parsed.Storage.WiredTiger.EngineConfig.CacheSizeGB; got != 0.5 {
		t.Errorf("getCmdLineOpts parsed.storage.wiredTiger.engineConfig.cacheSizeGB = %v, want 0.5", got)
	}
}

// TestWiredTigerCacheSizeGBOutOfRange: as mongod, a size outside
// 0.25-10000 GB stops the server before it serves, naming the option.
func TestWiredTigerCacheSizeGBOutOfRange(t *testing.T) {
	bin, err := harness.Binary()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "serve", "--port", "1", "--dbpath", t.TempDir(),
		"--wiredTigerCacheSizeGB", "0.1").CombinedOutput()
	if err == nil {
		t.Fatalf("relaydb serve --wiredTigerCacheSizeGB 0.1 exited 0:\n%s", out)
	}
	if !strings.Contains(string(out), "wiredTigerCacheSizeGB 0.1 is out of range") {
		t.Errorf("output %q does not name the bad option", out)
	}
}
