package command

import "testing"

func TestFsyncGate(t *testing.T) {
	g := &fsyncGate{}
	if g.held() != nil {
		t.Fatal("a new gate is held")
	}
	if _, ok := g.unlock(); ok {
		t.Fatal("unlock without a lock succeeded")
	}
	if n := g.lock(); n != 1 {
		t.Fatalf("first lock count %d", n)
	}
	if n := g.lock(); n != 2 {
		t.Fatalf("nested lock count %d", n)
	}
	ch := g.held()
	if n, ok := g.unlock(); !ok || n != 1 {
		t.Fatalf("unlock: %d %v", n, ok)
	}
	select {
	case <-ch:
		t.Fatal("released while one lock is still held")
	default:
	}
	if n, ok := g.unlock(); !ok || n != 0 {
		t.Fatalf("last unlock: %d %v", n, ok)
	}
	select {
	case <-ch:
	default:
		t.Fatal("not released after the last unlock")
	}
	if g.held() != nil {
		t.Error("held after the last unlock")
	}
}
