package catalog

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/storage"
)

// Open opens the storage engine, the oplog and the catalog, and starts the
// background TTL reaper and oplog truncation.
func Open(opts Options) (*Catalog, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Storage.Logger == nil {
		opts.Storage.Logger = opts.Logger
	}
	eng, err := storage.Open(opts.Storage)
	if err != nil {
		return nil, err
	}
	c, err := openOn(eng, opts)
	if err != nil {
		_ = eng.Close()
		return nil, err
	}
	if !opts.Storage.ReadOnly {
		c.startBackground(opts.TTLInterval)
	}
	return c, nil
}

// openOn loads the oplog and catalog from an open engine.
func openOn(eng *storage.Engine, opts Options) (*Catalog, error) {
	log, err := oplog.Open(eng, oplog.Options{SizeMB: opts.OplogSizeMB, Now: opts.Now, Logger: opts.Logger})
	if err != nil {
		return nil, fmt.Errorf("catalog: open oplog: %w", err)
	}
	c := &Catalog{eng: eng, log: log, logger: opts.Logger, now: opts.Now, stop: make(chan struct{}), ttlWake: make(chan struct{}, 1)}
	if err := c.load(); err != nil {
		return nil, err
	}
	return c, nil
}

// Close stops background work and closes the engine (syncing the WAL).
func (c *Catalog) Close() error {
	close(c.stop)
	c.wg.Wait()
	c.writeMu.Lock() // wait for an in-flight write
	defer c.writeMu.Unlock()
	c.snaps.closeAll()
	if !c.eng.ReadOnly() {
		if err := c.log.Checkpoint(); err != nil { // so the next Open scans nothing
			c.logger.Warn("oplog size checkpoint at close failed", "err", err)
		}
	}
	return c.eng.Close()
}

// startBackground runs the TTL reaper and the oplog truncation loop.
func (c *Catalog) startBackground(ttl time.Duration) {
	if ttl == 0 {
		ttl = 60 * time.Second
	}
	c.wg.Add(1)
	go c.loop(time.Second, func() {
		if _, err := c.log.Truncate(); err != nil {
			c.logger.Error("oplog truncation failed", "err", err)
		}
	})
	if ttl > 0 {
		c.ttlInterval.Store(int64(ttl))
		c.wg.Add(1)
		go c.ttlLoop()
	}
}

// SetTTLInterval changes the TTL monitor's period (MongoDB's
// ttlMonitorSleepSecs); it takes effect after the current sleep.
func (c *Catalog) SetTTLInterval(d time.Duration) {
	if d > 0 {
		c.ttlInterval.Store(int64(d))
		select {
		case c.ttlWake <- struct{}{}:
		default:
		}
	}
}

// TTLInterval returns the TTL monitor's period.
func (c *Catalog) TTLInterval() time.Duration { return time.Duration(c.ttlInterval.Load()) }

// ttlLoop deletes expired documents every TTLInterval until Close.
func (c *Catalog) ttlLoop() {
	defer c.wg.Done()
	for {
		t := time.NewTimer(c.TTLInterval())
		select {
		case <-c.stop:
			t.Stop()
			return
		case <-c.ttlWake:
			t.Stop()
			continue
		case <-t.C:
		}
		if _, err := c.ReapTTL(); err != nil {
			c.logger.Error("TTL monitor failed", "err", err)
		}
	}
}

// loop calls f every period until Close.
func (c *Catalog) loop(period time.Duration, f func()) {
	defer c.wg.Done()
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
			f()
		}
	}
}
