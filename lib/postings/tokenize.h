// The tokenizer of tokenize.c, as Go (tokenize.go) sees it.
typedef struct d2mTok {
	void *t; // Fts5Tokenizer
	char *bytes;
	int len, cap;
	int *ends;
	int n, ncap;
} d2mTok;

d2mTok *d2mTokNew(int *rc);
void d2mTokFree(d2mTok *p);
int d2mTokRun(d2mTok *p, int flags, const char *text, int n);
double d2mLog(double x);
