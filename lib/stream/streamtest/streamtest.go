// Package streamtest runs real NATS servers with JetStream inside tests: one
// server, or a cluster on loopback whose nodes can be stopped and restarted.
package streamtest

import (
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Node is one server of a Cluster.
type Node struct {
	opts *server.Options
	srv  *server.Server
}

// Cluster is a set of JetStream servers routed to each other on 127.0.0.1.
type Cluster struct {
	t     testing.TB
	Nodes []*Node
}

// Start runs n servers (n = 1: a standalone server) with their stores under
// t.TempDir(), each with its options adjusted by opts (users, limits), waits until they are ready (and, for a cluster, until
// JetStream has a meta leader), and stops them when the test ends.
func Start(t testing.TB, n int, opts ...func(*server.Options)) *Cluster {
	t.Helper()
	c := &Cluster{t: t}
	dir := t.TempDir()
	clusterPorts := make([]int, n)
	for i := range clusterPorts {
		clusterPorts[i] = freePort(t)
	}
	for i := range n {
		o := &server.Options{
			ServerName: fmt.Sprintf("n%d", i+1), Host: "127.0.0.1", Port: freePort(t),
			JetStream: true, StoreDir: filepath.Join(dir, fmt.Sprintf("n%d", i+1)),
			NoLog: true, NoSigs: true,
		}
		if n > 1 {
			o.Cluster = server.ClusterOpts{Name: "d2m", Host: "127.0.0.1", Port: clusterPorts[i]}
			for j, p := range clusterPorts {
				if j != i {
					u, _ := url.Parse(fmt.Sprintf("nats://127.0.0.1:%d", p))
					o.Routes = append(o.Routes, u)
				}
			}
		}
		for _, f := range opts {
			f(o)
		}
		c.Nodes = append(c.Nodes, &Node{opts: o})
	}
	for _, nd := range c.Nodes {
		nd.start(t)
	}
	t.Cleanup(c.Shutdown)
	c.WaitReady()
	return c
}

func (nd *Node) start(t testing.TB) {
	t.Helper()
	s, err := server.NewServer(nd.opts)
	if err != nil {
		t.Fatalf("nats server: %v", err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatalf("nats server %s not ready", nd.opts.ServerName)
	}
	nd.srv = s
}

// WaitReady waits until every running node reports JetStream ready with a
// meta leader.
func (c *Cluster) WaitReady() {
	c.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		ok := true
		for _, nd := range c.Nodes {
			if nd.srv == nil {
				continue
			}
			if !nd.srv.JetStreamEnabled() || (len(c.Nodes) > 1 && nd.srv.JetStreamIsClustered() && !hasLeader(nd.srv)) {
				ok = false
			}
		}
		if ok {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	c.t.Fatalf("jetstream cluster not ready after 30s")
}

func hasLeader(s *server.Server) bool {
	r := s.JetStreamIsLeader()
	if r {
		return true
	}
	info, err := s.Jsz(&server.JSzOptions{})
	return err == nil && info.Meta != nil && info.Meta.Leader != ""
}

// URL is "nats://127.0.0.1:p1,127.0.0.1:p2,…/subject" over all nodes.
func (c *Cluster) URL(subject string) string {
	var hosts []string
	for _, nd := range c.Nodes {
		hosts = append(hosts, fmt.Sprintf("127.0.0.1:%d", nd.opts.Port))
	}
	return "nats://" + strings.Join(hosts, ",") + "/" + subject
}

// Stop shuts node i down (its store stays on disk).
func (c *Cluster) Stop(i int) {
	if s := c.Nodes[i].srv; s != nil {
		s.Shutdown()
		s.WaitForShutdown()
		c.Nodes[i].srv = nil
	}
}

// Shutdown stops every node.
func (c *Cluster) Shutdown() {
	for i := range c.Nodes {
		c.Stop(i)
	}
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
