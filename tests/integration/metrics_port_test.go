package integration

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/tests/harness"
)

// TestMetricsPort (issue #14 item 7: --metricsPort was accepted and
// ignored): GET /metrics on --metricsPort answers the serverStatus
// counters in Prometheus's text format, and they move with the traffic.
func TestMetricsPort(t *testing.T) {
	port := freePortString(t)
	srv := harness.Start(t, harness.WithArgs("--metricsPort", port))
	url := "http://127.0.0.1:" + port + "/metrics"
	before := scrape(t, url)
	cl := srv.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	coll := cl.Database("metrics").Collection("c")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "a", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := coll.FindOne(ctx, bson.D{}).Err(); err != nil {
			t.Fatal(err)
		}
	}
	after := scrape(t, url)
	if got := sampleOf(t, after, `relaydb_commands_total{command="find"}`) - sampleOf(t, before, `relaydb_commands_total{command="find"}`); got < 3 {
		t.Errorf("find commands counted %d, want >= 3", got)
	}
	if got := sampleOf(t, after, `relaydb_opcounters_total{type="insert"}`); got < 1 {
		t.Errorf("insert opcounter %d, want >= 1", got)
	}
	if got := sampleOf(t, after, "relaydb_connections_current"); got < 1 {
		t.Errorf("connections_current %d, want >= 1", got)
	}
}

func scrape(t *testing.T, url string) string {
	t.Helper()
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
	}
	return string(b)
}

// sampleOf is the value of the sample named name (with its labels).
func sampleOf(t *testing.T, text, name string) int64 {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` (\d+)$`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no sample %s in:\n%s", name, text)
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	return n
}
