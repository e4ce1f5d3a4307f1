package hashing

import (
	"bytes"
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/embed"
	"github.com/viterin/vek/vek32"
)

type evalCase struct {
	query string
	doc   embed.Input
}

var evalPkgs = strings.Fields(`strings bytes strconv net/http net/url os io bufio encoding/json time sort
sync path/filepath regexp fmt crypto/tls compress/gzip archive/zip text/template math/big go/parser
go/ast net/mail mime/multipart image/png database/sql context flag log/slog html/template`)

func loadEval(t testing.TB) []evalCase {
	root := filepath.Join(runtime.GOROOT(), "src")
	var cases []evalCase
	for _, pkg := range evalPkgs {
		dir := filepath.Join(root, pkg)
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Skipf("no Go source tree: %v", err)
		}
		for _, e := range ents {
			name := e.Name()
			if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
				continue
			}
			src, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
			if err != nil {
				continue
			}
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Body == nil {
					continue
				}
				body := src[fset.Position(fd.Pos()).Offset:fset.Position(fd.End()).Offset]
				if len(body) > 3000 {
					body = body[:3000]
				}
				c := evalCase{doc: embed.Input{Text: string(body), Kind: "code", Path: pkg + "/" + name, Lang: "go"}}
				if fd.Doc != nil {
					q := fd.Doc.Text()
					if i := strings.Index(q, ". "); i > 0 {
						q = q[:i]
					}
					q = strings.TrimSpace(q)
					q = strings.TrimPrefix(q, fd.Name.Name+" ")
					if len(q) > 30 && !bytes.Contains([]byte(q), []byte("Deprecated")) {
						c.query = q
					}
				}
				cases = append(cases, c)
			}
		}
	}
	return cases
}

func evalMRR(t testing.TB, e *Embedder, cases []evalCase) (mrr, r10 float64, nq int) {
	docs := make([]embed.Input, len(cases))
	for i, c := range cases {
		docs[i] = c.doc
	}
	dv, err := e.Embed(context.Background(), docs)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		if c.query == "" {
			continue
		}
		qv, _ := e.Embed(context.Background(), []embed.Input{{Text: c.query, Kind: "code", Query: true}})
		target := vek32.Dot(qv[0], dv[i])
		rank := 1
		for j := range dv {
			if j != i && vek32.Dot(qv[0], dv[j]) > target {
				rank++
			}
		}
		nq++
		mrr += 1 / float64(rank)
		if rank <= 10 {
			r10++
		}
	}
	return mrr / float64(nq), r10 / float64(nq), nq
}

// TestRetrievalQuality guards ranking quality: each documented function
// of some standard library packages is searched for by the first sentence
// of its doc comment (function name removed) among all their functions.
// hash-v1/512 scores MRR ≈ 0.34 and recall@10 ≈ 0.56 on the full package
// list with Go 1.26; the floors leave room for other Go versions.
func TestRetrievalQuality(t *testing.T) {
	if testing.Short() {
		t.Skip("parses and embeds standard library source")
	}
	cases := loadEval(t)
	if len(cases) < 1000 {
		t.Skipf("only %d functions found in GOROOT", len(cases))
	}
	e, _ := New(DefaultDim)
	mrr, r10, n := evalMRR(t, e, cases)
	t.Logf("%d queries over %d functions: MRR=%.4f recall@10=%.4f", n, len(cases), mrr, r10)
	if mrr < 0.28 || r10 < 0.48 {
		t.Fatalf("retrieval quality regressed: MRR=%.4f (floor 0.28), recall@10=%.4f (floor 0.48)", mrr, r10)
	}
}
