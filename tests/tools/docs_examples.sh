#!/usr/bin/env bash
# Every example of docs/*.md and scenarios/LANGUAGE.md, as docs/development.md
# ("Examples in the docs") says: each fenced block says what it is by its
# info string, and
#   ```sh      commands: each one runs (kwsim and build-release/kwsim being
#              the kwsim under test) in a directory of the test's own, one a
#              page, from which scenarios/ and tools/ are the repository's; it
#              exits 0, or N where its comment says "exit N" (0 or 1 either
#              way where bound() below made it smaller: it may find less);
#              GNU parallel's status is the worst of its jobs
#   ```output  what the sh block just before it prints (its last command):
#              every line is in that output ("..." in a line stands for any
#              text; a line "..." for lines left out)
#   ```text    not commands: a synopsis, a log, a file's text
#   ```kws*    scenario text (scenarios/LANGUAGE.md's: tests/tools/language_ref.sh;
#              a page's kws block must parse and run)
# A sh block right after "<!-- not-run: WHY -->" is not run (QEMU boots, builds,
# servers, editors); the test counts those and says why. A block with no info
# string or another one fails, as does a command that fails, naming page:line.
# Usage: docs_examples.sh KWSIM ROOT
set -uo pipefail
kwsim=$(realpath "${1:?usage: docs_examples.sh KWSIM ROOT}")
root=$(realpath "${2:?usage: docs_examples.sh KWSIM ROOT}")
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" && ln -s "$kwsim" "$tmp/bin/kwsim"

# blocks PAGE: one line a fenced block, "LINE<TAB>KIND<TAB>WHY" (WHY: the
# not-run comment's, or empty), its text (the fence's indent taken off) in
# $tmp/b/PAGE-LINE
blocks() {
	awk -v out="$tmp/b/$(basename "$1")" '
		function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
		!inside && /^ *```/ {
			inside = 1; start = NR; match($0, /^ */); indent = RLENGTH
			kind = trim(substr($0, indent + 4))
			why = ""
			if (prev ~ /^<!-- not-run:.*-->$/) { why = prev; sub(/^<!-- not-run: */, "", why); sub(/ *-->$/, "", why) }
			if (why == "" && prev ~ /^<!-- not-run/) why = "(empty)"
			printf "%d\t%s\t%s\n", start, (kind == "" ? "-" : kind), why
			f = out "-" start; printf "" > f; next
		}
		inside && /^ *```$/ { inside = 0; close(f); prev = ""; next }
		inside { line = $0; if (substr(line, 1, indent) ~ /^ *$/) line = substr(line, indent + 1); print line >> f; next }
		{ if (trim($0) != "") prev = trim($0) }' "$1"
}

# bound: a command's sizes as the test runs it (docs/development.md says the same):
# paths under /tmp/ go to tmp/ here; explore's --runs at most 500; fuzz's at most 4
# programs (--time S: --runs 4), 4 schedules, 20 cross-runs, --jobs at most 2, --shard I/N
# of N at most 2 (parallel's ::: list cut to match); rediscover's --programs at most 4,
# --seeds 1, no --time; bench --quick (--long: --long=1); bench --races --seeds 1 --bound 20.
bound() {
	awk '
		function num(s) { return s ~ /^[0-9]+$/ }
		{
			# the comment apart: it says the exit status, and takes nothing added
			note = ""
			if (match($0, /(^|[ \t])#/)) { note = substr($0, RSTART); $0 = substr($0, 1, RSTART - 1); sub(/^[ \t]+/, "", note) }
			sub(/[ \t]+$/, "")
			n = split($0, w, /[ ]+/); cmd = ""; out = ""
			for (i = 1; i <= n; i++) if (w[i] ~ /^(fuzz|explore|bench|rediscover|tools\/rediscover)$/ && cmd == "") cmd = w[i]
			sub(/^tools\//, "", cmd)
			for (i = 1; i <= n; i++) {
				x = w[i]; gsub(/\/tmp\//, "tmp/", x)
				if (x == "--runs" && num(w[i + 1])) { lim = (cmd == "fuzz" ? 4 : 500); if (w[i + 1] > lim) w[i + 1] = lim }
				else if (x == "--time" && num(w[i + 1])) {
					if (cmd == "rediscover" || $0 ~ /--runs/) { i++; continue }
					x = "--runs"; w[i + 1] = 4
				}
				else if (x == "--programs" && num(w[i + 1]) && w[i + 1] > 4) w[i + 1] = 4
				else if (x == "--seeds" && num(w[i + 1])) w[i + 1] = 1
				else if (x == "--bound" && num(w[i + 1]) && w[i + 1] > 20) w[i + 1] = 20
				else if (x == "--cross-runs" && num(w[i + 1]) && w[i + 1] > 20) w[i + 1] = 20
				else if (x == "--jobs" && num(w[i + 1]) && w[i + 1] > 2) w[i + 1] = 2
				else if (x == "--long") x = "--long=1"
				else if (x ~ /^\{\}\/[0-9]+$/) x = "{}/2"
				else if (x == ":::") { out = out " ::: 0 1"; while (i < n && w[i + 1] ~ /^[0-9]+$/) i++; continue }
				out = out (out == "" ? "" : " ") x
			}
			add = ""
			if (cmd == "fuzz" && out !~ /--runs/) add = add " --runs 4"
			if (cmd == "fuzz" && out !~ /--schedules/) add = add " --schedules 4"
			if (cmd == "fuzz" && out !~ /--cross-runs/) add = add " --cross-runs 20"
			if (cmd == "bench" && out !~ /--quick|--long/) add = add " --quick"
			if (cmd == "bench" && out ~ /--races/ && out !~ /--seeds/) add = add " --seeds 1"
			if (cmd == "bench" && out ~ /--races/ && out !~ /--bound/) add = add " --bound 20"
			if (cmd == "explore" && out !~ /--runs|--time|--token/) add = add " --runs 500"
			# GNU parallel exits with how many jobs failed: each job says it in a log
			if (w[1] == "parallel") out = "parallel --joblog parallel.joblog" substr(out, 9)
			# before the argument list of parallel, if any
			if (at = index(out, " ::: ")) out = substr(out, 1, at - 1) add substr(out, at)
			else out = out add
			print out (note == "" ? "" : " " note)
		}'
}

# commands BODY: the block's commands, one a line, "LINE<TAB>COMMAND": a line ending
# in \ or inside an open "..." goes on with the next; comments and blank lines are none.
commands() {
	awk '
		function open(s,  t) { t = s; gsub(/[^"]/, "", t); return length(t) % 2 }
		{ line = $0 }
		cur != "" { cur = cur "\n" line; q = q + open(line) }
		cur == "" { if (line ~ /^[ \t]*(#|$)/) next; cur = line; at = NR; q = open(line) }
		line ~ /\\$/ || q % 2 { next }
		{ gsub(/\\\n[ \t]*/, " ", cur); gsub(/\n/, "\\n", cur); printf "%d\t%s\n", at, cur; cur = "" }' "$1"
}

# matches OUTPUT SHOWN: the shown lines (but "...") not in OUTPUT, each "LINE<TAB>text"
matches() {
	awk '
		function fits(s, p,  n, part, i, at) {
			n = split(p, part, /\.\.\./)
			if (index(s, part[1]) != 1) return 0
			s = substr(s, length(part[1]) + 1)
			for (i = 2; i < n; i++) { at = index(s, part[i]); if (!at) return 0; s = substr(s, at + length(part[i])) }
			if (n == 1) return s == ""
			return part[n] == "" || (length(s) >= length(part[n]) && substr(s, length(s) - length(part[n]) + 1) == part[n])
		}
		# indentation aside: a block in a list item loses its first columns
		FNR == NR { sub(/[ \t]+$/, ""); sub(/^[ \t]+/, ""); got[++m] = $0; next }
		{
			sub(/[ \t]+$/, ""); sub(/^[ \t]+/, ""); if ($0 == "..." || $0 == "") next
			for (i = 1; i <= m; i++) if (fits(got[i], $0)) next
			printf "%d\t%s\n", FNR, $0
		}' "$1" "$2"
}

# setup PAGE: the page's own directory, as a reader's checkout would look from it
setup() {
	local d=$tmp/run/$1
	mkdir -p "$d/build-release" "$d/tmp"
	ln -s "$root/scenarios" "$d/scenarios"
	ln -s "$root/tools" "$d/tools"
	ln -s "$kwsim" "$d/build-release/kwsim"
	echo "$d"
}

ran=0 marked=0 texts=0 outputs=0 scen=0
declare -A whys
pages=("$root"/docs/*.md "$root/scenarios/LANGUAGE.md")
mkdir -p "$tmp/b"
for page in "${pages[@]}"; do
	rel=${page#"$root"/}
	base=$(basename "$page")
	dir=$(setup "${base%.md}")
	last_out="" last_at=""
	while IFS=$'\t' read -r at kind why; do
		body=$tmp/b/$base-$at
		check
		case "$kind" in
		sh)
			if [[ -n $why ]]; then
				marked=$((marked + 1)) whys[$why]=$((${whys[$why]:-0} + 1)) last_out=""
				continue
			fi
			# the block as one script: each command's output and status apart, the
			# shell's variables (K=..., A=...) carried from one to the next
			script=$tmp/script.sh n=0
			: >"$script"
			while IFS=$'\t' read -r line cmd; do
				n=$((n + 1))
				printf '%b' "$cmd" >"$dir/cmd.$n.page"
				cmd=$(printf '%b' "$cmd" | bound)
				printf '%s\t%s\n' "$((at + line))" "$cmd" >"$dir/cmd.$n"
				printf '{ %s\n} >%q 2>&1 </dev/null; echo $? >%q\n' "$cmd" "$dir/out.$n" "$dir/rc.$n" >>"$script"
			done < <(commands "$body")
			[[ $n -gt 0 ]] || { fail "$rel:$at: a sh block with no command"; continue; }
			echo "$rel:$at: $n commands"
			(cd "$dir" && PATH="$tmp/bin:$PATH" EDITOR=true bash "$script" >/dev/null 2>&1)
			for ((i = 1; i <= n; i++)); do
				IFS=$'\t' read -r line cmd <"$dir/cmd.$i"
				ran=$((ran + 1))
				check
				want=0
				[[ $cmd =~ \#.*exit\ ([0-9]+) ]] && want=${BASH_REMATCH[1]}
				rc=$(cat "$dir/rc.$i" 2>/dev/null || echo none)
				# parallel: the worst of its jobs (their exit status, or 128 + a signal)
				[[ $cmd == parallel\ * ]] &&
					rc=$(awk -F'\t' 'NR > 1 { s = $8 ? 128 + $8 : $7; if (s > m) m = s } END { print m + 0 }' "$dir/parallel.joblog")
				# sizes bounded: whether it found something may differ from the page's run
				[[ $(tr -s ' ' <<<"$cmd") == "$(tr -s ' ' <"$dir/cmd.$i.page")" ]] ||
					{ [[ $want == [01] && $rc == [01] ]] && want=$rc; }
				if [[ $rc != "$want" ]]; then
					fail "$rel:$line: '$cmd' exits $rc, not $want $(kw_status_problem "${rc/none/1}"): $(tail -3 "$dir/out.$i" 2>/dev/null | tr '\n' ' ')"
				fi
			done
			last_out=$dir/out.$n last_at=$at
			;;
		output)
			outputs=$((outputs + 1))
			if [[ -z $last_out ]]; then
				fail "$rel:$at: an output block after no sh block that ran"
				continue
			fi
			matches "$last_out" "$body" >"$tmp/missing"
			while IFS=$'\t' read -r line text; do
				fail "$rel:$((at + line)): shown as the output of the block at line $last_at, not printed: '$text'"
			done <"$tmp/missing"
			[[ -s $tmp/missing ]] && echo "  it printed: $(head -20 "$last_out")"
			;;
		text) texts=$((texts + 1)) last_out="" ;;
		kws*)
			scen=$((scen + 1)) last_out=""
			# a page's scenario parses and runs; LANGUAGE.md's are language_ref.sh's
			if [[ $rel == docs/* ]]; then
				cp "$body" "$dir/shown.kws"
				"$kwsim" run "$dir/shown.kws" >"$dir/shown.out" 2>&1
				rc=$?
				[[ $rc -le 1 ]] || fail "$rel:$at: the scenario shown does not run (exit $rc): $(head -2 "$dir/shown.out")"
			fi
			;;
		-) fail "$rel:$at: a fenced block with no info string (sh, output, text or kws: docs/development.md)" ;;
		*) fail "$rel:$at: a fenced block of kind '$kind', not sh, output, text or kws" ;;
		esac
	done < <(blocks "$page")
done

echo "examples: $ran commands ran, $outputs outputs compared, $texts text blocks, $scen scenario blocks, $marked blocks marked not-run:"
for why in "${!whys[@]}"; do echo "  ${whys[$why]} $why"; done | sort -k2
check
[[ $ran -ge 20 ]] || fail "only $ran commands ran: the pages lost their examples, or this test its way of finding them"
summary
