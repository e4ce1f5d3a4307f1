// The full-text tokenizer of FTS5 ("porter unicode61 remove_diacritics 2
// tokenchars '_'", the tokenizer chunks_fts was created with), called
// directly: the keyword index (package postings) stores exactly the terms
// FTS5 would, and a query's words become exactly the terms FTS5 would look
// up. The tokenizer comes from the SQLite amalgamation github.com/mattn/go-sqlite3
// links into the binary; this file declares the part of the FTS5 API it uses.

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct sqlite3 sqlite3;
typedef struct sqlite3_stmt sqlite3_stmt;
typedef struct Fts5Tokenizer Fts5Tokenizer;
typedef struct fts5_api fts5_api;

#define SQLITE_OK 0
#define SQLITE_NOMEM 7
#define SQLITE_OPEN_READWRITE 0x00000002
#define SQLITE_OPEN_CREATE 0x00000004
#define SQLITE_OPEN_MEMORY 0x00000080
#define SQLITE_OPEN_FULLMUTEX 0x00010000
#define FTS5_TOKEN_COLOCATED 0x0001
// FTS5_MAX_TOKEN_SIZE: FTS5 truncates longer tokens, in documents and queries.
#define D2M_MAX_TOKEN 32768

extern int sqlite3_open_v2(const char *, sqlite3 **, int, const char *);
extern int sqlite3_prepare_v2(sqlite3 *, const char *, int, sqlite3_stmt **, const char **);
extern int sqlite3_bind_pointer(sqlite3_stmt *, int, void *, const char *, void (*)(void *));
extern int sqlite3_step(sqlite3_stmt *);
extern int sqlite3_finalize(sqlite3_stmt *);

typedef struct fts5_tokenizer {
	int (*xCreate)(void *, const char **azArg, int nArg, Fts5Tokenizer **ppOut);
	void (*xDelete)(Fts5Tokenizer *);
	int (*xTokenize)(Fts5Tokenizer *, void *pCtx, int flags, const char *pText, int nText,
	                 int (*xToken)(void *pCtx, int tflags, const char *pToken, int nToken, int iStart, int iEnd));
} fts5_tokenizer;

// The leading members of fts5_api (fts5.h).
struct fts5_api {
	int iVersion;
	int (*xCreateTokenizer)(fts5_api *, const char *, void *, fts5_tokenizer *, void (*)(void *));
	int (*xFindTokenizer)(fts5_api *, const char *, void **, fts5_tokenizer *);
};

static pthread_once_t d2mTokOnce = PTHREAD_ONCE_INIT;
static int d2mTokRC = -1;
static sqlite3 *d2mTokDB;      // kept open: the tokenizer module belongs to it
static fts5_tokenizer d2mTokPorter;
static void *d2mTokUser;

static void d2mTokSetup(void) {
	sqlite3_stmt *st = 0;
	fts5_api *api = 0;
	int rc = sqlite3_open_v2(":memory:", &d2mTokDB,
	                         SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_MEMORY | SQLITE_OPEN_FULLMUTEX, 0);
	if (rc != SQLITE_OK) {
		d2mTokRC = rc;
		return;
	}
	rc = sqlite3_prepare_v2(d2mTokDB, "SELECT fts5(?1)", -1, &st, 0);
	if (rc != SQLITE_OK) {
		d2mTokRC = rc; // no FTS5 in this build
		return;
	}
	sqlite3_bind_pointer(st, 1, (void *)&api, "fts5_api_ptr", 0);
	sqlite3_step(st);
	sqlite3_finalize(st);
	if (api == 0) {
		d2mTokRC = 1;
		return;
	}
	d2mTokRC = api->xFindTokenizer(api, "porter", &d2mTokUser, &d2mTokPorter);
}

#include "tokenize.h"

// A d2mTok is one tokenizer instance (its t an Fts5Tokenizer) with the
// buffer of its last run's tokens: bytes holds them back to back, ends[i]
// is where token i ends. An instance is used by one thread at a time.

// d2mTokNew returns a new instance, or 0 (and *rc set) when FTS5 or memory
// is missing.
d2mTok *d2mTokNew(int *rc) {
	static const char *args[] = {"unicode61", "remove_diacritics", "2", "tokenchars", "_"};
	d2mTok *p;
	pthread_once(&d2mTokOnce, d2mTokSetup);
	if (d2mTokRC != SQLITE_OK) {
		*rc = d2mTokRC;
		return 0;
	}
	p = (d2mTok *)calloc(1, sizeof(d2mTok));
	if (p == 0) {
		*rc = SQLITE_NOMEM;
		return 0;
	}
	*rc = d2mTokPorter.xCreate(d2mTokUser, args, 5, (Fts5Tokenizer **)&p->t);
	if (*rc != SQLITE_OK) {
		free(p);
		return 0;
	}
	return p;
}

void d2mTokFree(d2mTok *p) {
	if (p == 0) return;
	d2mTokPorter.xDelete((Fts5Tokenizer *)p->t);
	free(p->bytes);
	free(p->ends);
	free(p);
}

static int d2mTokAdd(void *ctx, int tflags, const char *tok, int ntok, int iStart, int iEnd) {
	d2mTok *p = (d2mTok *)ctx;
	(void)iStart;
	(void)iEnd;
	if (tflags & FTS5_TOKEN_COLOCATED) return SQLITE_OK; // synonyms: never from these tokenizers
	if (ntok > D2M_MAX_TOKEN) ntok = D2M_MAX_TOKEN;
	if (p->len + ntok > p->cap) {
		int c = p->cap ? p->cap : 4096;
		char *b;
		while (c < p->len + ntok) c *= 2;
		b = (char *)realloc(p->bytes, c);
		if (b == 0) {
			return SQLITE_NOMEM;
		}
		p->bytes = b;
		p->cap = c;
	}
	if (p->n == p->ncap) {
		int c = p->ncap ? p->ncap * 2 : 512;
		int *e = (int *)realloc(p->ends, sizeof(int) * c);
		if (e == 0) {
			return SQLITE_NOMEM;
		}
		p->ends = e;
		p->ncap = c;
	}
	memcpy(p->bytes + p->len, tok, ntok);
	p->len += ntok;
	p->ends[p->n++] = p->len;
	return SQLITE_OK;
}

// d2mTokRun tokenizes text (flags: FTS5_TOKENIZE_DOCUMENT 4 or
// FTS5_TOKENIZE_QUERY 1) into p's buffer, replacing its previous tokens,
// and returns an SQLite result code.
int d2mTokRun(d2mTok *p, int flags, const char *text, int n) {
	p->len = 0;
	p->n = 0;
	if (n == 0) return SQLITE_OK;
	return d2mTokPorter.xTokenize((Fts5Tokenizer *)p->t, (void *)p, flags, text, n, d2mTokAdd);
}

#include <math.h>

// d2mLog is the C library's log, which FTS5's bm25() uses: Go's math.Log
// may differ from it in the last bit, and BM25 scores must be identical.
double d2mLog(double x) { return log(x); }
