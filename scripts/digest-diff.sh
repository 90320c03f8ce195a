#!/usr/bin/env bash
# digest-diff.sh REV WORLD [LINES]: where a world pinned by kgviz's
# TestEventLogDigests (testdata/digests.txt) changed between revision REV and
# the work tree. It writes the world's events at both (kgviz's
# TestDumpPinnedWorld: each event's transcript line and the fields the digest
# hashes) and prints the first LINES (default 40) lines of their unified diff,
# which start at the first event that differs.
#
#   scripts/digest-diff.sh HEAD 'random seed=17'
#   scripts/digest-diff.sh 8717557 'demo zombie' 80
#
# REV is exported with git archive into a temporary folder (no worktree is
# registered); kgviz/digest_dump_test.go is copied into it, so REV needs only
# the world (runScript, RollingRestartWith, package scenarios).
set -euo pipefail
rev=${1:?usage: digest-diff.sh REV WORLD [LINES]}
world=${2:?usage: digest-diff.sh REV WORLD [LINES]}
lines=${3:-40}
root=$(git rev-parse --show-toplevel)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/old"
git -C "$root" archive "$rev" | tar -x -C "$tmp/old"
cp "$root/kgviz/digest_dump_test.go" "$tmp/old/kgviz/"
dump() { # dir out
	(cd "$1" && KGVIZ_DUMP_WORLD="$world" KGVIZ_DUMP_TO="$2" go test ./kgviz -run '^TestDumpPinnedWorld$' -count=1 >"$2.log" 2>&1) ||
		{ cat "$2.log" >&2; exit 1; }
}
dump "$tmp/old" "$tmp/old.txt"
dump "$root" "$tmp/new.txt"
echo "$world: $(grep -c '^#' "$tmp/old.txt") events at $rev, $(grep -c '^#' "$tmp/new.txt") in the work tree"
if diff -q "$tmp/old.txt" "$tmp/new.txt" >/dev/null; then
	echo "no difference"
	exit 0
fi
diff -U 2 --label "$rev" --label "work tree" "$tmp/old.txt" "$tmp/new.txt" | head -n "$lines" || true
