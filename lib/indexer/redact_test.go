package indexer

import (
	"context"
	"strings"
	"testing"
)

// chunkTexts returns the live chunks' text and first line, and the stored
// representations' content.
func (f *fixture) chunkTexts() (chunks map[string]int, reps []string) {
	f.t.Helper()
	rows, err := f.st.ReadDB().QueryContext(context.Background(), `SELECT c.text, s.start FROM chunks c JOIN spans s ON s.chunk_id = c.chunk_id WHERE c.deleted = 0`)
	if err != nil {
		f.t.Fatal(err)
	}
	defer rows.Close()
	chunks = map[string]int{}
	for rows.Next() {
		var text string
		var line int
		if err := rows.Scan(&text, &line); err != nil {
			f.t.Fatal(err)
		}
		chunks[text] = line
	}
	rr, err := f.st.ReadDB().QueryContext(context.Background(), `SELECT COALESCE(content, '') || ' ' || title FROM representations r JOIN documents d ON d.doc_id = r.doc_id`)
	if err != nil {
		f.t.Fatal(err)
	}
	defer rr.Close()
	for rr.Next() {
		var s string
		if err := rr.Scan(&s); err != nil {
			f.t.Fatal(err)
		}
		reps = append(reps, s)
	}
	return chunks, reps
}

// A key inside an indexed README is masked before chunking: no chunk,
// representation or title holds it, the file stays searchable, and the
// lines after a masked multi-line block keep their numbers. Turning
// security.redact off is a policy change that re-chunks with the key.
func TestIndexMasksCredentials(t *testing.T) {
	key := "sk" + "-proj-" + "Zx8Cv7Bn6Mm5Ll4Kk3Jj2Hh1Gg0Ff9"
	var b strings.Builder
	b.WriteString("# Deploy " + key + "\n\nThe staging database lives at postgres://app:S3cr3tPw@db/app.\n\n")
	b.WriteString("-----BEGIN OPENSSH PRIVATE KEY-----\n")
	for range 60 {
		b.WriteString("b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n")
	}
	b.WriteString("-----END OPENSSH PRIVATE KEY-----\n")
	for i := range 40 {
		b.WriteString("Paragraph " + strings.Repeat("about the deployment of the service ", 2) + string(rune('a'+i%26)) + "\n")
	}
	b.WriteString("unicorn marker line\n")
	f := newFixture(t, map[string]string{"README.md": b.String()})
	f.cfg.Chunking.MaxChars = 600
	f.run(hasher(t, 64))
	chunks, reps := f.chunkTexts()
	if len(chunks) < 3 {
		t.Fatalf("want the README in several chunks, got %d", len(chunks))
	}
	all := strings.Join(reps, "\n")
	for text := range chunks {
		all += "\n" + text
	}
	for _, secret := range []string{key, "S3cr3tPw", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ"} {
		if strings.Contains(all, secret) {
			t.Errorf("the index holds %q", secret)
		}
	}
	if !strings.Contains(all, "[REDACTED]") || !strings.Contains(all, "postgres://app:[REDACTED]@db/app") {
		t.Error("masked spans should show the replacement")
	}
	found := false
	for text, line := range chunks {
		if i := strings.Index(text, "unicorn marker line"); i >= 0 {
			found = true
			if got := line + strings.Count(text[:i], "\n"); got != 107 {
				t.Errorf("the marker is on line %d of the chunks, want 107 (its line in the file)", got)
			}
		}
	}
	if !found {
		t.Error("the text after the key block is not indexed")
	}

	f.cfg.Security.Redact.Enabled = false
	if run := f.run(hasher(t, 64)); run.Reps != 1 {
		t.Errorf("turning redaction off should rebuild the README, run %+v", run)
	}
	chunks, _ = f.chunkTexts()
	all = ""
	for text := range chunks {
		all += text
	}
	if !strings.Contains(all, key) {
		t.Error("with redaction off the index holds the file as written")
	}
}
