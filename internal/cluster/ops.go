package cluster

import (
	"context"
	"fmt"
	"syscall"
	"time"
)

// Resolve finds a member by name (m0, m1, ...) or by the word "primary"
// (the current primary, found with hello).
func (c *Cluster) Resolve(ctx context.Context, name string) (*Member, error) {
	if name == "primary" {
		return c.Primary(ctx)
	}
	return c.Member(name)
}

// Kill sends SIGKILL to the named member and waits (bounded) until its
// process is gone. Killing a stopped member is a no-op.
func (c *Cluster) Kill(ctx context.Context, name string) (*Member, error) {
	m, err := c.Resolve(ctx, name)
	if err != nil {
		return nil, err
	}
	if err := signalAndWait(ctx, m, syscall.SIGKILL, 5*time.Second); err != nil {
		return m, err
	}
	return m, c.save()
}

// Stop shuts the named member down cleanly (SIGTERM, bounded wait, then
// SIGKILL).
func (c *Cluster) Stop(ctx context.Context, name string) (*Member, error) {
	m, err := c.Resolve(ctx, name)
	if err != nil {
		return nil, err
	}
	if err := stop(ctx, m); err != nil {
		return m, err
	}
	return m, c.save()
}

// Restart stops the named member if it runs, starts it again with the same
// arguments and data directory and waits until it answers ping.
func (c *Cluster) Restart(ctx context.Context, name string) (*Member, error) {
	m, err := c.Resolve(ctx, name)
	if err != nil {
		return nil, err
	}
	if err := stop(ctx, m); err != nil {
		return m, err
	}
	if err := c.spawn(m); err != nil {
		return m, err
	}
	if err := c.save(); err != nil {
		return m, err
	}
	if err := c.waitPing(ctx, m, c.spec.StartTimeout); err != nil {
		return m, fmt.Errorf("cluster: restart %s: %w", m.Name, err)
	}
	return m, nil
}
