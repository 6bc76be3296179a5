#!/usr/bin/env bash
# bench/real-instructions.sh: the 8-commit history over real MariaDB 10.11.18
# used for issue 11's figures (notes/realbench.md). Run after
# `bench/real-build.sh prepare`. Commits c1..c8 on top of perfbisect-base
# (tagged c0 = good); c4 is the culprit: a one-line InnoDB change that adds a
# volatile loop of 40 iterations to every row_search_mvcc call.
# Then, from the perfbisect checkout (opt-in, not CI; the first build takes
# about 11 minutes on a quiet 2-core machine):
#   go build -o /tmp/pb ./cmd/perfbisect
#   /tmp/pb compare --repo /tmp/mariadb-src --metric instructions --runs 3 --tables 1 --table-size 100000 c3 c4
#   /tmp/pb bisect --repo /tmp/mariadb-src --metric instructions --tables 1 --table-size 100000 --good c0 --bad c8 --json
#   /tmp/pb compare --repo /tmp/mariadb-src --runs 10 --time 10 --threads 16 c3 c4   # the TPS side
set -euo pipefail
SRC=${SRC:-/tmp/mariadb-src}
cd "$SRC"
git rev-parse -q --verify perfbisect-base >/dev/null
if git rev-parse -q --verify c8 >/dev/null; then echo "$SRC already has c8" >&2; exit 0; fi
g() { git -c user.name=perfbisect -c user.email=bench@localhost "$@"; }
commit() { g add -A; g commit -q -m "$2"; g tag "$1"; echo "$1 $(git rev-parse --short HEAD) $2" >&2; }
git checkout -q perfbisect-base 2>/dev/null || true
git checkout -q -B realbench perfbisect-base
git tag -f c0 perfbisect-base >/dev/null
# c1: comment text in sql/sql_select.cc, same line count (identical binary expected)
sed -i '636s|Deactivate LIMIT ROWS EXAMINED after query execution.|Switch off LIMIT ROWS EXAMINED once the query has run.|' sql/sql_select.cc
commit c1 "sql_select.cc: reword a comment"
# c2: README.md only (not compiled)
printf '\nBuilt for perfbisect real-instructions bench.\n' >>README.md
commit c2 "README: one line"
# c3: comment text in btr0cur.cc, same line count
sed -i '228s|Relax the assertion in rec_init_offsets().|Loosen the assertion in rec_init_offsets().|' storage/innobase/btr/btr0cur.cc
commit c3 "btr0cur.cc: reword a comment"
# c4: THE CULPRIT: one line in row_search_mvcc (every point select)
sed -i '4350a\	for (volatile int perfbisect_i = 0; perfbisect_i < 40; perfbisect_i = perfbisect_i + 1) {}' storage/innobase/row/row0sel.cc
commit c4 "row0sel.cc: row_search_mvcc spins a volatile loop of 40 (planted slowdown)"
# c5: comment text in sql_parse.cc, same line count
sed -i '484s|Initialize the server command flags array.|Set up the server command flags array.|' sql/sql_parse.cc
commit c5 "sql_parse.cc: reword a comment"
# c6: a blank line at the top of sql_show.cc: line numbers move, so the
# binary differs (debug info, __LINE__) but no point-select work changes
sed -i '2a\ ' sql/sql_show.cc
commit c6 "sql_show.cc: one blank line (different binary, same work)"
# c7: comment text in row0sel.cc, same line count
sed -i '109s|This function should never be invoked on tables in|This function must never be invoked on tables in|' storage/innobase/row/row0sel.cc
commit c7 "row0sel.cc: reword a comment"
# c8: README.md again
printf 'Second line.\n' >>README.md
commit c8 "README: another line"
git tag -f good c0 >/dev/null; git tag -f bad c8 >/dev/null
git log --oneline --stat perfbisect-base..c8 >&2
