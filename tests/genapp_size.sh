#!/usr/bin/env bash
# genapp_size.sh — the program `tracefold genapp` writes for a regular
# workload grows with the compressed trace, not with the calls: the
# workload recorded at two iteration counts (100 and 10,000) gives
# programs whose line counts differ by at most a few lines (a trip count
# may need a table where a literal did; the oracle is the line count of
# the smaller program), while the calls grow a hundredfold.
#
# usage: genapp_size.sh --mpirun "CMD ARGS" --np P --lib LIBTRACEFOLD --cli TRACEFOLD
#                       --iters "SMALL LARGE" --slack LINES -- PROGRAM [ARGS...]
# shellcheck disable=SC2154 # the option variables: set by tf_options (lib.sh)
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
tf_options "mpirun np lib cli iters slack --:prog" "$@"
tf_workdir genapp-size
read -r small large <<<"$iters"
lines=()
calls=()
for i in "$small" "$large"; do
  tf_record "$work/run$i" "$work/trace$i" -- "${prog[@]}" -i "$i"
  tf_must "$work/gen$i" "genapp failed at $i iterations" "$cli" genapp --compute none -o "$work/app$i.c" "$work/trace$i"
  lines+=("$(wc -l <"$work/app$i.c")")
  calls+=("$("$cli" counts --rank 0 "$work/trace$i" | awk '{ s += $2 } END { print s }')")
done
say "$name: $small iterations: ${lines[0]} lines (${calls[0]} calls on rank 0); $large: ${lines[1]} lines (${calls[1]} calls)"
[ "${calls[1]}" -gt $((calls[0] * 10)) ] || fail "the larger run does not make many more calls (${calls[*]})"
diff=$((lines[1] - lines[0]))
[ "${diff#-}" -le "$slack" ] || fail "the program grew by $diff lines from $small to $large iterations (at most $slack)"
