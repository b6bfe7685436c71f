package router

import (
	"context"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/relaydb/relaydb/internal/shard/configsvr"
)

// uptimeInterval is how often a router reports itself in config.mongos
// (mongos' kUptimeReportInterval).
const uptimeInterval = 10 * time.Second

// StartUptimeReporter keeps this router's config.mongos entry, _id
// "hostname:port", as mongos does: at once and then every 10 s an upsert
// of ping, up (seconds since start), waiting, mongoVersion and
// advisoryHostFQDNs (created on insert), best effort (a failure is
// logged and the next round tries again). The first round also makes
// sure config.version exists (Catalog.ClusterID), which MongoDB's config
// server creates when it first becomes primary and sh.status() requires.
// It runs until Close.
func (r *Router) StartUptimeReporter(port int) {
	host, _ := os.Hostname()
	id := net.JoinHostPort(host, strconv.Itoa(port))
	created := time.Now()
	go func() {
		t := time.NewTicker(uptimeInterval)
		defer t.Stop()
		haveVersion := false
		for {
			haveVersion = r.reportUptime(id, host, created, haveVersion)
			select {
			case <-r.ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
}

// reportUptime runs one round; it returns whether config.version exists.
func (r *Router) reportUptime(id, host string, created time.Time, haveVersion bool) bool {
	ctx, cancel := context.WithTimeout(r.ctx, uptimeInterval)
	defer cancel()
	if !haveVersion {
		if _, err := r.meta.ClusterID(ctx); err != nil {
			r.log.Warn("cannot read or create config.version", "err", err)
		} else {
			haveVersion = true
		}
	}
	m := configsvr.Mongos{ID: id, Ping: time.Now(), Up: int64(time.Since(r.start) / time.Second),
		MongoVersion: r.opts.Version, FQDNs: []string{host}, Created: created}
	if err := r.meta.ReportMongos(ctx, m); err != nil && r.ctx.Err() == nil {
		r.log.Warn("cannot write this router's uptime to config.mongos", "id", id, "err", err)
	}
	return haveVersion
}
