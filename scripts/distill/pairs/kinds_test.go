package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeTree writes files (relative path → content) under a new directory.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// summary lists pairs as "kind file ident: doc | code" lines.
func summary(ps []pair) string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Kind+" "+p.File+" "+p.Ident+": "+p.Doc+" | "+p.Code)
	}
	return strings.Join(out, "\n")
}

func checkPairs(t *testing.T, name string, got []pair, err error, want ...string) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if s := summary(got); s != strings.Join(want, "\n") {
		t.Errorf("%s:\n%s\nwant:\n%s", name, s, strings.Join(want, "\n"))
	}
}

func TestJSPairs(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"src/queue.ts": `/**
 * Queue keeps {@link Item items} waiting in arrival order, e.g. jobs.
 * More detail.
 * @param size the capacity
 */
export class Queue<T> {
  private items: T[] = []; // the line comment is dropped
}

/**
 * Removes and returns the oldest waiting item of the queue.
 */
export function dequeue(q: Queue<number>): number {
  return q.items.shift(); /* gone */
}

/** @deprecated Use dequeue instead of this old function. */
export function pop() {}
`,
		"dist/queue.d.ts":         "/**\n * Removes and returns the oldest waiting item of the queue.\n */\nexport declare function dequeue(q: Queue): number;\n",
		"test/queue.test.js":      "/** Checks that the queue works in every single case. */\nfunction check() {}\n",
		"node_modules/x/index.js": "/** A dependency's function must not be read at all. */\nfunction dep() {}\n",
	})
	ps, err := jsPairs(source{name: "queue", short: "queue"}, dir)
	checkPairs(t, "jsPairs", ps, err,
		"js src/queue.ts Queue: keeps Item waiting in arrival order, e.g. jobs. | queue src queue export queue t items t",
		"js src/queue.ts dequeue: Removes and returns the oldest waiting item of the queue. | queue src queue export dequeue q queue number number q items shift")
}

func TestRustPairs(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"src/lib.rs": `//! Crate docs are not an item's.

/// A ring buffer that overwrites its oldest element when full.
///
/// # Examples
/// more
#[derive(Debug,
    Clone)]
pub struct Ring<T> {
    buf: Vec<T>, // storage
}

impl<T> Ring<T> {
    /// Pushes a value, dropping the oldest one if the Ring is full.
    pub fn push(&mut self, v: T) {
        self.buf.push(v);
    }
}

/// Returns the larger of the two values given to it.
pub const fn larger(a: u32, b: u32) -> u32 { if a > b { a } else { b } }
`,
		"tests/t.rs": "/// A test helper that must never be read here.\nfn helper() {}\n",
	})
	ps, err := rustPairs(source{name: "ring", short: "ring"}, dir)
	checkPairs(t, "rustPairs", ps, err,
		"rs src/lib.rs Ring: A ring buffer that overwrites its oldest element when full. | ring src lib ring t buf vec t",
		"rs src/lib.rs Ring.push: Pushes a value, dropping the oldest one if the it is full. | ring src lib push v t buf push v",
		"rs src/lib.rs larger: Returns the it of the two values given to it. | ring src lib larger a u 32 b u 32 u 32 a b a b")
}

func TestPyPairs(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"lib/shapes.py": `class Square:
    """A square with sides of one length.

    Long description.
    """

    def area(self):  # comment
        """Returns the area of the Square in square units."""
        # a full-line comment
        return self.side ** 2


def scale(shape,
          factor):
    '''Scales the shape by the given factor in place.'''
    shape.side *= factor
`,
		"lib/shapes_test.py": "def test_area():\n    \"\"\"Checks the area of a unit square is one.\"\"\"\n",
	})
	ps, err := pyPairs(source{name: "shapes", short: "shapes"}, dir)
	checkPairs(t, "pyPairs", ps, err,
		"py lib/shapes.py Square: A square with sides of one length. | shapes lib shapes square area side 2",
		"py lib/shapes.py Square.area: Returns the it of the it in square units. | shapes lib shapes area side 2",
		"py lib/shapes.py scale: Scales the shape by the given factor in place. | shapes lib shapes scale shape factor shape side factor")
}

func TestMDPairs(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"README.md": "# Widget\n\n[![badge](https://x/y.svg)](https://x)\n\n## Configuring timeouts\n\n" +
			"Set `Timeout` on the [client](docs/client.md) to bound how long a request may take before it fails.\n\n" +
			"```go\nc.Timeout = time.Second\n```\n\n" +
			"## func (c *Client) Do(req *Request)\n\nThis heading is a signature and is left out of the pairs entirely.\n\n" +
			"## Why does the retry loop stop early?\n\nBecause the context deadline passed before the next attempt could start, so it gives up.\n\n" +
			"Connection pooling\n------------------\n\nIdle connections are kept per host and reused by later requests to the same host and port.\n\n" +
			"**Can I share one client between goroutines?**\n\nYes: a client is safe for concurrent use by many goroutines at once, always.\n",
		"CHANGELOG.md": "## Added retries\n\nThe client now retries idempotent requests that failed with a network error.\n",
	})
	ps, err := mdPairs(source{name: "widget", short: "widget"}, dir)
	if err != nil {
		t.Fatal(err)
	}
	got := summary(ps)
	for _, want := range []string{
		"Configuring timeouts | Set Timeout on the client to bound how long a request may take before it fails. c.Timeout = time.Second",
		"faq README.md Why does the retry loop stop early?: Why does the retry loop stop early? | Because the context deadline",
		"Connection pooling: ",
		"faq README.md Can I share one client between goroutines?: Can I share one client between goroutines? | Yes: a client is safe",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("mdPairs misses %q in:\n%s", want, got)
		}
	}
	for _, bad := range []string{"signature", "retries idempotent", "badge"} {
		if strings.Contains(got, bad) {
			t.Errorf("mdPairs keeps %q:\n%s", bad, got)
		}
	}
}

func TestQuestionFor(t *testing.T) {
	for head, want := range map[string]string{
		"How to set up TLS":    "how do I set up TLS",
		"Configuring timeouts": "how do I configure timeouts",
		"Running the server":   "how do I run the server",
		"Handling errors":      "how do I handle errors",
		"Installing plugins":   "how do I install plugins",
		"Install the CLI":      "how do I install the CLI",
	} {
		if got := questionFor(head); got != want {
			t.Errorf("questionFor(%q) = %q, want %q", head, got, want)
		}
	}
	q := questionFor("Connection pooling")
	if q != "what is connection pooling" && q != "how does connection pooling work" && q != "tell me about connection pooling" {
		t.Errorf("questionFor(noun phrase) = %q", q)
	}
}

func TestFirstSentence(t *testing.T) {
	for in, want := range map[string]string{
		"Parses the input, e.g. a file. Then more.": "Parses the input, e.g. a file.",
		"Returns [`Foo`] for {@link bar}.\nMore.":   "Returns Foo for bar.",
		"No full stop here\n\nSecond paragraph.":    "No full stop here",
	} {
		if got := firstSentence(in); got != want {
			t.Errorf("firstSentence(%q) = %q, want %q", in, got, want)
		}
	}
}
