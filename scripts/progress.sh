# scripts/progress.sh — sourced by scripts/setup.sh: long steps say what they do, how long they usually take,
# and that they are still alive.
#
#   long "<what>" "<usual duration>" command [args...]
#
# runs the command in the background and prints, every $KGVIZ_HEARTBEAT seconds (default 20) while it runs,
# "[setup]    … <what>: still working, 1m40s so far (usually <usual duration>)". It returns the command's exit
# status. The command's own output goes where it would have gone.

KGVIZ_HEARTBEAT="${KGVIZ_HEARTBEAT:-20}"

# fmt_secs 100 -> 1m40s
fmt_secs() {
	if (($1 >= 60)); then printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); else printf '%ds' "$1"; fi
}

long() {
	local what="$1" usual="$2"
	shift 2
	local t0=$SECONDS pid rc=0 waited
	printf '[setup]    %s (usually %s)\n' "$what" "$usual"
	"$@" &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		waited=0
		while ((waited < KGVIZ_HEARTBEAT)) && kill -0 "$pid" 2>/dev/null; do
			sleep 1
			waited=$((waited + 1))
		done
		if kill -0 "$pid" 2>/dev/null; then
			printf '[setup]    … %s: still working, %s so far (usually %s)\n' "$what" "$(fmt_secs $((SECONDS - t0)))" "$usual"
		fi
	done
	wait "$pid" || rc=$?
	printf '[setup]    %s: %s in %s\n' "$what" "$([[ $rc == 0 ]] && echo done || echo "FAILED (exit $rc)")" "$(fmt_secs $((SECONDS - t0)))"
	return "$rc"
}
