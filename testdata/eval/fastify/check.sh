#!/bin/sh
# check.sh CORPUS_DIR — validates the fastify newcomer sets against the extracted corpus.
# Every qrels line must be `qid 0 path:L<start>-L<end> grade` with grade 1 or 2, name an
# existing file of the corpus and a range 1 <= start <= end <= lines(file); every query must
# have at least one grade-2 answer, of its kind (docs set: a .md file; code set: not .md);
# qids must be unique and the same in the queries and the qrels.
set -eu
corpus=${1:?usage: check.sh CORPUS_DIR (fastify@5.12.8 extracted without the package/ prefix)}
here=$(dirname "$0")
fail=0
for kind in docs code; do
  q="$here/newcomer-$kind.queries.tsv"; r="$here/newcomer-$kind.qrels"
  dup=$(cut -f1 "$q" | sort | uniq -d)
  [ -z "$dup" ] || { echo "duplicate qids in $q: $dup"; fail=1; }
  awk -F'\t' 'NF != 2 || $2 == "" { print FILENAME ":" NR ": not qid<TAB>question"; bad=1 } END { exit bad }' "$q" || fail=1
  while read -r qid zero ref grade rest; do
    [ -z "$rest" ] && [ "$zero" = 0 ] || { echo "$r: malformed line for $qid"; fail=1; continue; }
    case $grade in 1|2) ;; *) echo "$r: $qid bad grade $grade"; fail=1 ;; esac
    path=${ref%:L*}; span=${ref##*:L}; a=${span%%-L*}; b=${span##*-L}
    case "$a$b" in *[!0-9]*|'') echo "$r: $qid bad span $ref"; fail=1; continue ;; esac
    f="$corpus/$path"
    [ -f "$f" ] || { echo "$r: $qid missing file $path"; fail=1; continue; }
    n=$(awk 'END { print NR }' "$f")
    if [ "$a" -lt 1 ] || [ "$b" -lt "$a" ] || [ "$b" -gt "$n" ]; then
      echo "$r: $qid range $a-$b outside $path (1-$n)"; fail=1
    fi
  done < "$r"
  # queries and qrels name the same qids; each query has a grade-2 answer of its kind
  cut -f1 "$q" | sort -u > /tmp/check.q.$$
  awk '{ print $1 }' "$r" | sort -u > /tmp/check.r.$$
  if ! cmp -s /tmp/check.q.$$ /tmp/check.r.$$; then
    echo "$kind: qids differ between queries and qrels:"; diff /tmp/check.q.$$ /tmp/check.r.$$ || true; fail=1
  fi
  awk -v kind="$kind" '$4 == 2 { p = $3; sub(/:L[0-9]+-L[0-9]+$/, "", p); md = (p ~ /\.md$/)
      if ((kind == "docs") == md) ok[$1] = 1 }
    { seen[$1] = 1 }
    END { for (q in seen) if (!ok[q]) { print kind ": " q " has no grade-2 answer of its kind"; bad = 1 }; exit bad }' "$r" || fail=1
  rm -f /tmp/check.q.$$ /tmp/check.r.$$
  printf '%s: %s queries, %s answers\n' "$kind" "$(wc -l < "$q" | tr -d ' ')" "$(wc -l < "$r" | tr -d ' ')"
done
[ "$fail" = 0 ] && echo "ok" || { echo "FAILED"; exit 1; }
