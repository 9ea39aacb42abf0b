#!/usr/bin/env bash
# units_report.sh LOG — after a run of the test graph: every unit that
# failed, then the totals (units, wall seconds of the run, CPU seconds of
# all units) and the five longest units, so a slow day and a slow unit can
# be told apart. Exits 1 if a unit failed or none ran.
set -u
log=$1
[ -s "$log" ] || { echo "units: none ran" >&2; exit 1; }
failed=$(grep -c 'FAILED' "$log")
echo "== units: $(wc -l <"$log") run, $failed failed, $(awk -F', ' '{split($3, c, " "); s += c[1]} END {printf "%.0f", s}' "$log") s cpu in all"
grep 'FAILED' "$log"
echo "   longest:"
awk -F', ' '{split($2, w, " "); print w[1] "\t" $0}' "$log" | sort -rn | head -5 | cut -f2- | sed 's/^/   /'
[ "$failed" -eq 0 ]
