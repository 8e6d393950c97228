#!/usr/bin/env bash
# The scenario language reference, scenarios/LANGUAGE.md, checked against
# kwsim (issue 12, item 4): every example in it runs as it says, and every
# setting, API call, keyword, state predicate, task state and finding kind
# the code knows appears in at least one example.
#
# Examples are the fenced blocks whose language is kws, kws-init, kws-stmt,
# kws-prog, kws-cond or kws-error (LANGUAGE.md, "How the examples here are
# checked"): kws runs as it is and must exit 0; the fragments are wrapped in
# the prelude below (kws-init alone in an init block) and must exit 0 or 1;
# kws-error must be refused with "FILE:LINE:COL: error:" and exit 2.
# The names are read from the tables in the source, not from a list here.
# Usage: language_ref.sh KWSIM SOURCE_DIR
set -euo pipefail
kwsim=$1 src=$2
ref=$src/scenarios/LANGUAGE.md
# shellcheck source=SCRIPTDIR/../status.sh
. "$(dirname "$0")/../status.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# (a file, not a variable: names() runs in a pipeline's subshell)
fail() { echo "FAIL: $*" | tee -a "$tmp/fails"; }

prelude='KW example
{
  cpus = 2;
  int n = 0;
  fn f { n++; }
  worker W = kthread_create_worker(0, "kw");
  work A = f;
  delayed_work D = f;
  spinlock L;
  completion C;
}'

# The prelude as LANGUAGE.md shows it must be the one used here.
if ! awk -v want="$prelude" '
	/^  ```(kws)?$/ && !inb { inb = 1; text = ""; next }
	/^  ```$/ && inb { inb = 0; if (text == want "\n") found = 1; next }
	inb { sub(/^  /, ""); text = text $0 "\n" }
	END { exit !found }' "$ref"; then
	fail "LANGUAGE.md does not show the prelude this test wraps fragments in"
fi

# Split the examples out: $tmp/NNN.KIND, one per block, and their text for the name check.
awk -v dir="$tmp" '
	/^```kws(-init|-stmt|-prog|-cond|-error)?$/ {
		n++; kind = substr($0, 4); file = sprintf("%s/%03d.%s", dir, n, kind)
		printf "" >file; inb = 1; next
	}
	/^```/ && inb { inb = 0; close(file); next }
	inb { print >>file; print >>(dir "/all-examples") }
' "$ref"

examples=0
for ex in "$tmp"/[0-9][0-9][0-9].*; do
	examples=$((examples + 1))
	kind=${ex##*.}
	n=$(basename "$ex" ".$kind")
	f=$tmp/example-$n.kws
	case $kind in
	kws | kws-error) cp "$ex" "$f" ;;
	kws-init) { echo "KW example"; echo "{"; cat "$ex"; echo "}"; echo "P0 { }"; } >"$f" ;;
	kws-stmt) { echo "$prelude"; echo "P0 @cpu0 {"; cat "$ex"; echo "}"; } >"$f" ;;
	kws-prog) { echo "$prelude"; cat "$ex"; } >"$f" ;;
	kws-cond)
		{
			echo "$prelude"
			echo "P0 @cpu0 { r0 = kthread_queue_work(W, A); kthread_flush_work(A); }"
			cat "$ex"
		} >"$f"
		;;
	esac
	rc=0
	"$kwsim" run "$f" >"$tmp/out" 2>"$tmp/err" || rc=$?
	problem=$(kw_status_problem "$rc")
	# (awk reads the whole file: a reader that left early would make a writer before it
	# fail under pipefail, and the assignment end the script with no word said)
	what="example $n ($kind, from line $(awk -v want="$(head -1 "$ex")" \
		'prev ~ /^```kws/ && $0 == want && !line { line = NR } { prev = $0 } END { print line }' "$ref"))"
	if [[ -n $problem ]]; then
		fail "$what: $problem"
	elif [[ $kind == kws-error ]]; then
		if ((rc != 2)) || ! grep -Eq "^$f:[0-9]+:[0-9]+: error: " "$tmp/err"; then
			head -5 "$tmp/err"
			fail "$what: meant to be refused (exit 2, FILE:LINE:COL: error:), got exit $rc"
		fi
	elif [[ $kind == kws ]] && ((rc != 0)); then
		head -5 "$tmp/err"
		sed -n '/^Findings/,$p' "$tmp/out" | head -20
		fail "$what: a whole scenario must meet its condition (exit 0), got exit $rc"
	elif ((rc > 1)); then
		head -5 "$tmp/err"
		fail "$what: a fragment must parse and run (exit 0 or 1), got exit $rc"
	fi
done
((examples >= 40)) || fail "only $examples examples found in $ref"

# Every name the code knows, in some example (as a whole word).
names() { # label: one name a line on stdin; at least MIN of them
	local label=$1 min=$2 count=0 name
	while IFS= read -r name; do
		count=$((count + 1))
		grep -Eq "(^|[^A-Za-z0-9_.])${name//./\\.}([^A-Za-z0-9_]|$)" "$tmp/all-examples" ||
			fail "the $label '$name' has no example in LANGUAGE.md"
	done
	((count >= min)) || fail "read only $count ${label}s from the source: the pattern broke"
}
scn=$src/tools/scenario
# settings: { "name", NULL, ... } and the costs { "cost", "sub", ... }
sed -n '/^} settings\[\] = {/,/^};/p' "$scn/scn_settings.c" |
	sed -En 's/^[[:space:]]*\{ "([a-z_]+)", NULL,.*/\1/p; s/^[[:space:]]*\{ "cost", "([a-z_]+)",.*/cost.\1/p' |
	names setting 24
# named values of settings (preempt, spinlock, strategy, skew, debug_objects)
grep -E '^static const char \*const [a-z_]+_names\[\] = \{' "$scn/scn_settings.c" |
	grep -o '"[a-z]*"' | tr -d '"' | names "setting value" 10
sed -n '/^static const struct scn_api apis\[\] = {/,/^};/p' "$scn/scn_api.c" |
	sed -En 's/^[[:space:]]*\{ "([a-z_]+)", API_.*/\1/p' | names "API call" 40
sed -n '/^static const char \*const keywords\[\] = {/,/^};/p' "$scn/scn_decl.c" |
	grep -o '"[A-Za-z_]*"' | tr -d '"' | names keyword 20
sed -n '/^static const char \*const pred_names\[\] = {/,/^};/p' "$scn/scn_cond.c" |
	grep -o '= "[a-z_]*"' | tr -d '="' | tr -d ' ' | names "state predicate" 9
sed -n '/^static const char \*const task_state_names/,/^};/p' "$scn/scn_cond.c" |
	grep -o '"TASK_[A-Z]*"' | tr -d '"' | names "task state" 5
sed -n '/^const char \*sim_finding_kind_name/,/^}/p' "$src/sim/oracle.c" |
	grep -o '= "[a-z_]*"' | tr -d '="' | tr -d ' ' | names "finding kind" 14
# the condition's and invariants' words
printf '%s\n' exists forall always never ran before NULL | names "condition word" 7

if [[ -s $tmp/fails ]]; then
	echo "$(wc -l <"$tmp/fails") failure(s)"
	exit 1
fi
echo "ok: $examples examples of LANGUAGE.md run as marked; every name has one"
