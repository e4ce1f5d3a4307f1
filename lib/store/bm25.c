// d2m_bm25: FTS5's bm25() ranking with the document frequencies supplied
// by the caller. FTS5's own bm25() counts the rows matching each phrase of
// the query once per query (xQueryPhrase over the phrase's whole doclist)
// to weigh it; for the common words of an ORed query that walk costs more
// than the search. The caller knows the counts (cached per index
// generation, see termstats.go), so this function only scores the rows the
// query visits. The formula, its constants and its floating-point operations
// are those of fts5_aux.c (SQLite 3.54), so scores are bit-identical when
// the counts are right.
//
//   d2m_bm25(tbl, w_0, ..., w_{C-1}, lens, sink, n_0, ..., n_{P-1})
//
// w_c is the weight of column c (exactly C of them, C = the table's column
// count); lens a handle of the rows' token counts (d2mLensNew; 0 = none),
// which spares a %_docsize lookup per scored row; n_p the number of rows
// phrase p (in query order) matches. Without lens, sink and exactly P
// counts, or with a negative count, a dropped handle or a row the lengths
// lack, the function reads what it lacks the way bm25() does, so it is
// never wrong, only slower. The counts it takes that way it writes to the
// sink (d2mSinkNew; 0 = none), for the caller to cache.

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

// Declarations from sqlite3.h and fts5.h (public domain) for what this file
// uses; the definitions are the SQLite amalgamation github.com/mattn/go-sqlite3
// links into the binary.
typedef long long sqlite3_int64;
typedef struct sqlite3 sqlite3;
typedef struct sqlite3_stmt sqlite3_stmt;
typedef struct sqlite3_value sqlite3_value;
typedef struct sqlite3_context sqlite3_context;
typedef struct sqlite3_api_routines sqlite3_api_routines;
typedef struct Fts5Context Fts5Context;
typedef struct Fts5PhraseIter Fts5PhraseIter;
typedef struct Fts5ExtensionApi Fts5ExtensionApi;
typedef struct fts5_api fts5_api;

#define SQLITE_OK 0
#define SQLITE_NOMEM 7

extern int sqlite3_prepare_v2(sqlite3 *, const char *, int, sqlite3_stmt **, const char **);
extern int sqlite3_bind_pointer(sqlite3_stmt *, int, void *, const char *, void (*)(void *));
extern int sqlite3_step(sqlite3_stmt *);
extern int sqlite3_finalize(sqlite3_stmt *);
extern double sqlite3_value_double(sqlite3_value *);
extern sqlite3_int64 sqlite3_value_int64(sqlite3_value *);
extern void sqlite3_result_double(sqlite3_context *, double);
extern void sqlite3_result_error_code(sqlite3_context *, int);
extern void *sqlite3_malloc64(unsigned long long);
extern void sqlite3_free(void *);
extern int sqlite3_auto_extension(void (*)(void));

typedef void (*fts5_extension_function)(const Fts5ExtensionApi *, Fts5Context *, sqlite3_context *, int, sqlite3_value **);

// The leading members of Fts5ExtensionApi, in fts5.h's order (only read
// through a pointer FTS5 provides, so the prefix is enough).
struct Fts5ExtensionApi {
	int iVersion;
	void *(*xUserData)(Fts5Context *);
	int (*xColumnCount)(Fts5Context *);
	int (*xRowCount)(Fts5Context *, sqlite3_int64 *pnRow);
	int (*xColumnTotalSize)(Fts5Context *, int iCol, sqlite3_int64 *pnToken);
	int (*xTokenize)(Fts5Context *, const char *pText, int nText, void *pCtx,
	                 int (*xToken)(void *, int, const char *, int, int, int));
	int (*xPhraseCount)(Fts5Context *);
	int (*xPhraseSize)(Fts5Context *, int iPhrase);
	int (*xInstCount)(Fts5Context *, int *pnInst);
	int (*xInst)(Fts5Context *, int iIdx, int *piPhrase, int *piCol, int *piOff);
	sqlite3_int64 (*xRowid)(Fts5Context *);
	int (*xColumnText)(Fts5Context *, int iCol, const char **pz, int *pn);
	int (*xColumnSize)(Fts5Context *, int iCol, int *pnToken);
	int (*xQueryPhrase)(Fts5Context *, int iPhrase, void *pUserData,
	                    int (*)(const Fts5ExtensionApi *, Fts5Context *, void *));
	int (*xSetAuxdata)(Fts5Context *, void *pAux, void (*xDelete)(void *));
	void *(*xGetAuxdata)(Fts5Context *, int bClear);
	int (*xPhraseFirst)(Fts5Context *, int iPhrase, Fts5PhraseIter *, int *, int *);
	void (*xPhraseNext)(Fts5Context *, Fts5PhraseIter *, int *piCol, int *piOff);
};

struct Fts5PhraseIter {
	const unsigned char *a;
	const unsigned char *b;
};

// The leading members of fts5_api.
struct fts5_api {
	int iVersion;
	int (*xCreateTokenizer)(fts5_api *, const char *, void *, void *, void (*)(void *));
	int (*xFindTokenizer)(fts5_api *, const char *, void **, void *);
	int (*xCreateFunction)(fts5_api *, const char *zName, void *pUserData,
	                       fts5_extension_function xFunction, void (*xDestroy)(void *));
};

// d2mLens is the token count of every row of one index generation, rowids
// ascending; immutable once made, freed when its handle is dropped and no
// query holds it. When rowids are dense enough, dense[rowid - first] holds
// the counts (-1 for a gap) and ids and lens are not kept.
typedef struct d2mLens {
	sqlite3_int64 handle;
	sqlite3_int64 *ids;
	int *lens;
	int n;
	int *dense;
	sqlite3_int64 first, span;
	int refs; // the registry's (until dropped) and each query's
	struct d2mLens *next;
} d2mLens;

static pthread_mutex_t d2mLensMu = PTHREAD_MUTEX_INITIALIZER;
static d2mLens *d2mLensList;
static sqlite3_int64 d2mLensLast;

// d2mLensNew copies n (rowid, tokens) pairs, rowids ascending, and returns
// their handle (0 when out of memory).
sqlite3_int64 d2mLensNew(const sqlite3_int64 *ids, const int *lens, int n) {
	d2mLens *l = (d2mLens *)calloc(1, sizeof(d2mLens));
	if (l == 0) return 0;
	if (n > 0 && ids[n - 1] - ids[0] < 4 * (sqlite3_int64)n) {
		sqlite3_int64 i;
		l->first = ids[0];
		l->span = ids[n - 1] - ids[0] + 1;
		l->dense = (int *)malloc(sizeof(int) * l->span);
		if (l->dense) {
			for (i = 0; i < l->span; i++) l->dense[i] = -1;
			for (i = 0; i < n; i++) l->dense[ids[i] - l->first] = lens[i];
			goto publish;
		}
	}
	l->ids = (sqlite3_int64 *)malloc(sizeof(sqlite3_int64) * (n > 0 ? n : 1));
	l->lens = (int *)malloc(sizeof(int) * (n > 0 ? n : 1));
	if (l->ids == 0 || l->lens == 0) {
		free(l->ids);
		free(l->lens);
		free(l);
		return 0;
	}
	memcpy(l->ids, ids, sizeof(sqlite3_int64) * n);
	memcpy(l->lens, lens, sizeof(int) * n);
	l->n = n;
publish:
	l->refs = 1;
	pthread_mutex_lock(&d2mLensMu);
	l->handle = ++d2mLensLast;
	l->next = d2mLensList;
	d2mLensList = l;
	pthread_mutex_unlock(&d2mLensMu);
	return l->handle;
}

static void d2mLensUnref(d2mLens *l) { // with d2mLensMu held
	if (--l->refs == 0) {
		free(l->dense);
		free(l->ids);
		free(l->lens);
		free(l);
	}
}

// d2mLensDrop forgets a handle; queries holding its lengths keep them.
void d2mLensDrop(sqlite3_int64 h) {
	d2mLens **pp;
	pthread_mutex_lock(&d2mLensMu);
	for (pp = &d2mLensList; *pp; pp = &(*pp)->next) {
		if ((*pp)->handle == h) {
			d2mLens *l = *pp;
			*pp = l->next;
			d2mLensUnref(l);
			break;
		}
	}
	pthread_mutex_unlock(&d2mLensMu);
}

static d2mLens *d2mLensGet(sqlite3_int64 h) {
	d2mLens *l;
	if (h <= 0) return 0;
	pthread_mutex_lock(&d2mLensMu);
	for (l = d2mLensList; l && l->handle != h; l = l->next) {
	}
	if (l) l->refs++;
	pthread_mutex_unlock(&d2mLensMu);
	return l;
}

// d2mLensFind returns the token count of rowid, or -1.
static int d2mLensFind(const d2mLens *l, sqlite3_int64 rowid) {
	int lo = 0, hi = l->n;
	if (l->dense) {
		sqlite3_int64 i = rowid - l->first;
		return i >= 0 && i < l->span ? l->dense[i] : -1;
	}
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (l->ids[mid] < rowid) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return lo < l->n && l->ids[lo] == rowid ? l->lens[lo] : -1;
}

// d2mSink receives the phrase counts one query takes.
typedef struct d2mSink {
	sqlite3_int64 handle;
	int n;
	sqlite3_int64 *vals; // -1 until counted
	struct d2mSink *next;
} d2mSink;

static d2mSink *d2mSinkList; // guarded by d2mLensMu

// d2mSinkNew returns the handle of a sink for n counts (0 when out of memory).
sqlite3_int64 d2mSinkNew(int n) {
	int i;
	d2mSink *k = (d2mSink *)calloc(1, sizeof(d2mSink));
	if (k == 0) return 0;
	k->vals = (sqlite3_int64 *)malloc(sizeof(sqlite3_int64) * (n > 0 ? n : 1));
	if (k->vals == 0) {
		free(k);
		return 0;
	}
	for (i = 0; i < n; i++) k->vals[i] = -1;
	k->n = n;
	pthread_mutex_lock(&d2mLensMu);
	k->handle = ++d2mLensLast;
	k->next = d2mSinkList;
	d2mSinkList = k;
	pthread_mutex_unlock(&d2mLensMu);
	return k->handle;
}

// d2mSinkTake copies the sink's n counts to out and frees the sink.
void d2mSinkTake(sqlite3_int64 h, sqlite3_int64 *out, int n) {
	d2mSink **pp, *k = 0;
	int i;
	for (i = 0; i < n; i++) out[i] = -1;
	pthread_mutex_lock(&d2mLensMu);
	for (pp = &d2mSinkList; *pp; pp = &(*pp)->next) {
		if ((*pp)->handle == h) {
			k = *pp;
			*pp = k->next;
			break;
		}
	}
	pthread_mutex_unlock(&d2mLensMu);
	if (k == 0) return;
	for (i = 0; i < n && i < k->n; i++) out[i] = k->vals[i];
	free(k->vals);
	free(k);
}

static void d2mSinkPut(sqlite3_int64 h, int i, sqlite3_int64 v) {
	d2mSink *k;
	if (h <= 0) return;
	pthread_mutex_lock(&d2mLensMu);
	for (k = d2mSinkList; k && k->handle != h; k = k->next) {
	}
	if (k && i < k->n) k->vals[i] = v;
	pthread_mutex_unlock(&d2mLensMu);
}

// Per-query data, computed on the first row (as fts5Bm25GetData does).
typedef struct {
	int nPhrase;
	double avgdl;
	double *aIDF;
	double *aFreq;
	double *aW; // column weights
	d2mLens *lens; // held until the query ends; 0 = read %_docsize
} d2mBm25Data;

static void d2mBm25DataFree(void *p) {
	d2mBm25Data *d = (d2mBm25Data *)p;
	if (d->lens) {
		pthread_mutex_lock(&d2mLensMu);
		d2mLensUnref(d->lens);
		pthread_mutex_unlock(&d2mLensMu);
	}
	sqlite3_free(d);
}

static int d2mCountCb(const Fts5ExtensionApi *pApi, Fts5Context *pFts, void *pUserData) {
	(void)pApi;
	(void)pFts;
	(*(sqlite3_int64 *)pUserData)++;
	return SQLITE_OK;
}

static int d2mBm25GetData(const Fts5ExtensionApi *pApi, Fts5Context *pFts, int nCol, int nVal,
                          sqlite3_value **apVal, d2mBm25Data **ppData) {
	int rc = SQLITE_OK;
	d2mBm25Data *p = (d2mBm25Data *)pApi->xGetAuxdata(pFts, 0);
	if (p == 0) {
		int nPhrase = pApi->xPhraseCount(pFts);
		sqlite3_int64 nRow = 0, nToken = 0;
		int given = nVal == nCol + 2 + nPhrase;
		sqlite3_int64 sink = given ? sqlite3_value_int64(apVal[nCol + 1]) : 0;
		int i;
		size_t nByte = sizeof(d2mBm25Data) + (nPhrase * 2 + nCol) * sizeof(double);
		p = (d2mBm25Data *)sqlite3_malloc64(nByte);
		if (p == 0) {
			rc = SQLITE_NOMEM;
		} else {
			memset(p, 0, nByte);
			p->nPhrase = nPhrase;
			p->aIDF = (double *)&p[1];
			p->aFreq = &p->aIDF[nPhrase];
			p->aW = &p->aFreq[nPhrase];
			for (i = 0; i < nCol; i++) p->aW[i] = nVal > i ? sqlite3_value_double(apVal[i]) : 1.0;
		}
		if (rc == SQLITE_OK) rc = pApi->xRowCount(pFts, &nRow);
		if (rc == SQLITE_OK) rc = pApi->xColumnTotalSize(pFts, -1, &nToken);
		if (rc == SQLITE_OK) p->avgdl = (double)nToken / (double)nRow;
		for (i = 0; rc == SQLITE_OK && i < nPhrase; i++) {
			sqlite3_int64 nHit = given ? sqlite3_value_int64(apVal[nCol + 2 + i]) : -1;
			if (nHit < 0) {
				nHit = 0;
				rc = pApi->xQueryPhrase(pFts, i, (void *)&nHit, d2mCountCb);
				if (rc == SQLITE_OK) d2mSinkPut(sink, i, nHit);
			}
			if (rc == SQLITE_OK) {
				double idf = log((nRow - nHit + 0.5) / (nHit + 0.5));
				if (idf <= 0.0) idf = 1e-6;
				p->aIDF[i] = idf;
			}
		}
		if (rc == SQLITE_OK && given) p->lens = d2mLensGet(sqlite3_value_int64(apVal[nCol]));
		if (rc != SQLITE_OK) {
			if (p) d2mBm25DataFree(p);
		} else {
			rc = pApi->xSetAuxdata(pFts, p, d2mBm25DataFree);
		}
		if (rc != SQLITE_OK) p = 0;
	}
	*ppData = p;
	return rc;
}

static void d2mBm25(const Fts5ExtensionApi *pApi, Fts5Context *pFts, sqlite3_context *pCtx, int nVal,
                    sqlite3_value **apVal) {
	const double k1 = 1.2;
	const double b = 0.75;
	int nCol = pApi->xColumnCount(pFts);
	double score = 0.0;
	d2mBm25Data *pData = 0;
	int i, nTok = -1;
	double D = 0.0;
	double *aFreq = 0;
	int rc = d2mBm25GetData(pApi, pFts, nCol, nVal, apVal, &pData);
	if (rc == SQLITE_OK) {
		aFreq = pData->aFreq;
		memset(aFreq, 0, sizeof(double) * pData->nPhrase);
	}
	// Each phrase's instances in (column, offset) order: per phrase the
	// additions bm25()'s walk over xInst makes, in the same order, without
	// merging all phrases' instances into one sorted array first.
	for (i = 0; rc == SQLITE_OK && i < pData->nPhrase; i++) {
		Fts5PhraseIter it;
		int ic, io;
		rc = pApi->xPhraseFirst(pFts, i, &it, &ic, &io);
		for (; rc == SQLITE_OK && ic >= 0; pApi->xPhraseNext(pFts, &it, &ic, &io)) {
			aFreq[i] += ic < nCol ? pData->aW[ic] : 1.0;
		}
	}
	if (rc == SQLITE_OK && pData->lens) nTok = d2mLensFind(pData->lens, pApi->xRowid(pFts));
	if (rc == SQLITE_OK && nTok < 0) rc = pApi->xColumnSize(pFts, -1, &nTok);
	if (rc == SQLITE_OK) D = (double)nTok;
	if (rc == SQLITE_OK) {
		for (i = 0; i < pData->nPhrase; i++) {
			score += pData->aIDF[i] * ((aFreq[i] * (k1 + 1.0)) / (aFreq[i] + k1 * (1 - b + b * D / pData->avgdl)));
		}
		sqlite3_result_double(pCtx, -1.0 * score);
	} else {
		sqlite3_result_error_code(pCtx, rc);
	}
}

// d2m_count(tbl, sink) writes the number of rows each phrase of the query
// matches to the sink and returns the number of phrases: the document
// frequencies of many terms in one statement (on the first row of their
// OR), each counted as bm25() counts it.
static void d2mCount(const Fts5ExtensionApi *pApi, Fts5Context *pFts, sqlite3_context *pCtx, int nVal,
                     sqlite3_value **apVal) {
	int i, rc = SQLITE_OK;
	int nPhrase = pApi->xPhraseCount(pFts);
	sqlite3_int64 sink = nVal > 0 ? sqlite3_value_int64(apVal[0]) : 0;
	for (i = 0; rc == SQLITE_OK && i < nPhrase; i++) {
		sqlite3_int64 nHit = 0;
		rc = pApi->xQueryPhrase(pFts, i, (void *)&nHit, d2mCountCb);
		if (rc == SQLITE_OK) d2mSinkPut(sink, i, nHit);
	}
	if (rc == SQLITE_OK) {
		sqlite3_result_double(pCtx, (double)nPhrase);
	} else {
		sqlite3_result_error_code(pCtx, rc);
	}
}

// d2mRegister adds d2m_bm25 and d2m_count to a new connection (an auto
// extension).
static int d2mRegister(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pThunk) {
	sqlite3_stmt *st = 0;
	fts5_api *api = 0;
	(void)pzErrMsg;
	(void)pThunk;
	if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &st, 0) != SQLITE_OK) {
		return SQLITE_OK; // no FTS5 in this build: LexicalSearch reports the missing function
	}
	sqlite3_bind_pointer(st, 1, (void *)&api, "fts5_api_ptr", 0);
	sqlite3_step(st);
	sqlite3_finalize(st);
	if (api == 0 || api->iVersion < 2) return SQLITE_OK;
	int rc = api->xCreateFunction(api, "d2m_bm25", 0, d2mBm25, 0);
	if (rc == SQLITE_OK) rc = api->xCreateFunction(api, "d2m_count", 0, d2mCount, 0);
	return rc;
}

int d2mBm25AutoExtension(void) { return sqlite3_auto_extension((void (*)(void))d2mRegister); }
