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
//   d2m_bm25(tbl, w_0, ..., w_{C-1}, n_0, ..., n_{P-1})
//
// w_c is the weight of column c (exactly C of them, C = the table's column
// count), n_p the number of rows phrase p (in query order) matches. Without
// exactly P counts, or with a negative one, the function counts that phrase
// the way bm25() does, so it is never wrong, only slower.

#include <math.h>
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
};

// The leading members of fts5_api.
struct fts5_api {
	int iVersion;
	int (*xCreateTokenizer)(fts5_api *, const char *, void *, void *, void (*)(void *));
	int (*xFindTokenizer)(fts5_api *, const char *, void **, void *);
	int (*xCreateFunction)(fts5_api *, const char *zName, void *pUserData,
	                       fts5_extension_function xFunction, void (*xDestroy)(void *));
};

// Per-query data, computed on the first row (as fts5Bm25GetData does).
typedef struct {
	int nPhrase;
	double avgdl;
	double *aIDF;
	double *aFreq;
} d2mBm25Data;

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
		int given = nVal == nCol + nPhrase;
		int i;
		p = (d2mBm25Data *)sqlite3_malloc64(sizeof(d2mBm25Data) + nPhrase * 2 * sizeof(double));
		if (p == 0) {
			rc = SQLITE_NOMEM;
		} else {
			memset(p, 0, sizeof(d2mBm25Data) + nPhrase * 2 * sizeof(double));
			p->nPhrase = nPhrase;
			p->aIDF = (double *)&p[1];
			p->aFreq = &p->aIDF[nPhrase];
		}
		if (rc == SQLITE_OK) rc = pApi->xRowCount(pFts, &nRow);
		if (rc == SQLITE_OK) rc = pApi->xColumnTotalSize(pFts, -1, &nToken);
		if (rc == SQLITE_OK) p->avgdl = (double)nToken / (double)nRow;
		for (i = 0; rc == SQLITE_OK && i < nPhrase; i++) {
			sqlite3_int64 nHit = given ? sqlite3_value_int64(apVal[nCol + i]) : -1;
			if (nHit < 0) {
				nHit = 0;
				rc = pApi->xQueryPhrase(pFts, i, (void *)&nHit, d2mCountCb);
			}
			if (rc == SQLITE_OK) {
				double idf = log((nRow - nHit + 0.5) / (nHit + 0.5));
				if (idf <= 0.0) idf = 1e-6;
				p->aIDF[i] = idf;
			}
		}
		if (rc != SQLITE_OK) {
			sqlite3_free(p);
		} else {
			rc = pApi->xSetAuxdata(pFts, p, sqlite3_free);
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
	int i, nInst = 0;
	double D = 0.0;
	double *aFreq = 0;
	int rc = d2mBm25GetData(pApi, pFts, nCol, nVal, apVal, &pData);
	if (rc == SQLITE_OK) {
		aFreq = pData->aFreq;
		memset(aFreq, 0, sizeof(double) * pData->nPhrase);
		rc = pApi->xInstCount(pFts, &nInst);
	}
	for (i = 0; rc == SQLITE_OK && i < nInst; i++) {
		int ip, ic, io;
		rc = pApi->xInst(pFts, i, &ip, &ic, &io);
		if (rc == SQLITE_OK) {
			double w = (nVal > ic && ic < nCol) ? sqlite3_value_double(apVal[ic]) : 1.0;
			aFreq[ip] += w;
		}
	}
	if (rc == SQLITE_OK) {
		int nTok;
		rc = pApi->xColumnSize(pFts, -1, &nTok);
		D = (double)nTok;
	}
	if (rc == SQLITE_OK) {
		for (i = 0; i < pData->nPhrase; i++) {
			score += pData->aIDF[i] * ((aFreq[i] * (k1 + 1.0)) / (aFreq[i] + k1 * (1 - b + b * D / pData->avgdl)));
		}
		sqlite3_result_double(pCtx, -1.0 * score);
	} else {
		sqlite3_result_error_code(pCtx, rc);
	}
}

// d2mRegister adds d2m_bm25 to a new connection (an auto extension).
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
	return api->xCreateFunction(api, "d2m_bm25", 0, d2mBm25, 0);
}

int d2mBm25AutoExtension(void) { return sqlite3_auto_extension((void (*)(void))d2mRegister); }
