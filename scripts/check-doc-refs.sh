#!/usr/bin/env bash
# Checks that every file and every document section that the repository's comments and documents cite exists.
#
#   scripts/check-doc-refs.sh              check the tracked files of this repository
#   scripts/check-doc-refs.sh --self-test  check the checker on a small made-up repository
#
# What counts as a citation, in tracked *.hpp, *.cpp, *.md, *.sh, *.cmake, *.txt and CMakeLists.txt files:
#   - a file name ending in .hpp, .cpp, .md, .sh or .cmake (`docs/traps.md`, `detail/frame.hpp`, `join.md`).
#     It must name a tracked file: from the repository's root, from the citing file's directory, as the tail of
#     a tracked path (`forkjoin/task.hpp`), or, for a bare name, as any tracked file's name.
#   - a section: `X.md "Title"`, `X.md, "Title"`, `X.md §"Title"` (also inside parentheses) or `X.md §N`, and
#     `README "Title"` or `README: "Title"`. The file must have a Markdown heading that contains Title (a title
#     that a line break cuts short is checked up to the break), or, for §N, a heading numbered `N.`.
#   - the names of notes kept outside the repository (`outside_notes` below), which it must not rely on.
# URLs are not citations. Names that are not this repository's files go into `ignored_names` below.
# Each broken citation is printed as `file:line: cites X, which does not exist`; the exit status is non-zero if
# there is any. scripts/test.sh runs this as its `docs` configuration.
set -uo pipefail
export LC_ALL=C

# Notes that lived outside the repository and were once cited; the repository must stand alone. Spelt in
# pieces so that this script does not mention them itself.
outside_notes=("PIT""FALLS" "\\.\\./""shared")

# Names mentioned as facts about other projects or system files, not as citations of ours.
ignored_names=(
  relacy.hpp        # Relacy's header, <relacy/relacy.hpp>
  relacy_std.hpp    # Relacy's std front end (which does not compile here)
  sample_trees.sh   # UTS's script that defines the sample trees
  file.cpp          # a placeholder in a usage line
  report.md         # written by scripts/bench.sh and fj-bench into results/
  memory.md         # written by fj-memory into results/
  sweep.md          # written by fj-sweep into results/sweep/
)

self_test=0
root=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --self-test) self_test=1 ;;
    --root) root="$2"; shift ;;  # check another tree (used by --self-test)
    *) echo "usage: scripts/check-doc-refs.sh [--self-test]" >&2; exit 2 ;;
  esac
  shift
done
self="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"

if [[ $self_test -eq 1 ]]; then
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  # The fixtures spell their extensions through variables, so that this script's own text cites nothing.
  md=md hpp=hpp readme=README notes="${outside_notes[0]}" shared=shared
  mkdir -p "$tmp/docs" "$tmp/src/detail"
  printf '# Guide\n\n## Intro\n\n## 2. Numbered part\n' >"$tmp/docs/guide.$md"
  printf '# Project\n\n## Usage\n' >"$tmp/$readme.$md"
  printf '// nothing\n' >"$tmp/src/detail/b.$hpp"
  cat >"$tmp/src/good.$hpp" <<EOF
// docs/guide.$md, src/detail/b.$hpp, detail/b.$hpp, b.$hpp and ../docs/guide.$md exist.
// Sections: docs/guide.$md "Intro", (guide.$md, "Intro"), guide.$md §"Intro", guide.$md §2,
// $readme: "Usage", $readme "Usage", docs/guide.$md "Intro
// (cut by a line break)". A URL is not a citation: https://example.org/missing.$md
EOF
  cat >"$tmp/src/bad.$hpp" <<EOF
// missing.$md
// src/detail/missing.$hpp
// ../docs/missing.$md
// docs/guide.$md "Outro"
// (guide.$md, "Outro")
// guide.$md §3
// $readme: "Install"
// $readme "Install"
// $notes, "Memory tools"
// see ../$shared/notes
EOF
  (cd "$tmp" && git init -q && git add -A) || { echo "check-doc-refs self-test: git init failed" >&2; exit 1; }
  out="$("$self" --root "$tmp" 2>&1)"
  status=$?
  failures=0
  expect() {  # expect DESCRIPTION CONDITION...
    local what="$1"
    shift
    if "$@"; then
      echo "  ok: $what"
    else
      echo "  FAILED: $what"
      failures=$((failures + 1))
    fi
  }
  expect "exit status non-zero" test "$status" -ne 0
  no_report_for() { ! grep -q "^$1:" <<<"$out"; }
  expect "no report for the good file" no_report_for "src/good.$hpp"
  for line in 1 2 3 4 5 6 7 8 9 10; do
    expect "bad.$hpp line $line reported" grep -q "^src/bad.$hpp:$line: cites .*, which does not exist$" <<<"$out"
  done
  expect "exactly 10 reports" test "$(grep -c 'which does not exist' <<<"$out")" -eq 10
  if [[ $failures -ne 0 ]]; then
    echo "check-doc-refs self-test: $failures failed; the checker printed:"
    echo "$out"
    exit 1
  fi
  echo "check-doc-refs self-test: passed"
  exit 0
fi

if [[ -n "$root" ]]; then
  cd "$root" || exit 2
else
  cd "$(dirname "$0")/.." || exit 2
fi

declare -A tracked=() basenames=() ignored=()
while IFS= read -r f; do
  tracked["$f"]=1
  basenames["${f##*/}"]+="$f "
done < <(git ls-files)
for n in "${ignored_names[@]}"; do
  ignored["$n"]=1
done

mapfile -t scanned < <(git ls-files | grep -E '(\.(hpp|cpp|md|sh|cmake|txt)|(^|/)CMakeLists\.txt)$' |
  grep -v -x -F "scripts/check-doc-refs.sh")

# resolve FROM NAME: prints the tracked files NAME may mean when cited in FROM (none: it does not exist).
resolve() {
  local from="$1" name="$2" dir candidate
  name="${name#./}"
  [[ -n "${tracked[$name]:-}" ]] && echo "$name"
  dir="$(dirname "$from")"
  candidate="$(realpath -m --relative-to=. "$dir/$name")"
  [[ -n "${tracked[$candidate]:-}" ]] && echo "$candidate"
  if [[ "$name" != */* ]]; then
    local b
    for b in ${basenames[$name]:-}; do echo "$b"; done
  else
    local t
    for t in "${!tracked[@]}"; do
      [[ "$t" == */"${name#../}" ]] && echo "$t"
    done
  fi
}

# Sets `heads` to the headings of a Markdown file, one per line (cached).
declare -A heading_cache=()
load_headings() {
  if [[ -z "${heading_cache[$1]+x}" ]]; then
    heading_cache["$1"]="$(grep -E '^#{1,6} ' "$1" 2>/dev/null | sed -E 's/^#+ +//')"
  fi
  heads="${heading_cache[$1]}"
}

broken=0
report() {  # report FILE LINE WHAT
  echo "$1:$2: cites $3, which does not exist"
  broken=$((broken + 1))
}

strip_urls() { sed -E 's#[A-Za-z][A-Za-z0-9+.-]*://[^[:space:])>"`]*##g'; }

# A section of NAME (cited from FROM): TITLE, or a heading number when NUMBER is set.
section_exists() {
  local from="$1" name="$2" title="$3" number="$4" f
  local -a files
  mapfile -t files < <(resolve "$from" "$name" | sort -u)
  for f in "${files[@]}"; do
    load_headings "$f"
    # Here-strings, not pipes: with pipefail, grep -q leaving early would fail the writer of a pipe.
    if [[ -n "$number" ]]; then
      grep -q -E "^${number//./\\.}\\.( |$)" <<<"$heads" && return 0
    else
      grep -q -F -- "$title" <<<"$heads" && return 0
      grep -q -F -- "${title//\`/}" <<<"${heads//\`/}" && return 0
    fi
  done
  return 1
}

for file in "${scanned[@]}"; do
  [[ -f "$file" ]] || continue
  text="$(strip_urls <"$file")"

  # (a) file names. The character before a name must not be part of a path or a shell/template expression
  # (`$name.cpp`, `<x>.md`, `*.hpp` are not citations).
  while IFS=: read -r line match; do
    [[ -z "$match" ]] && continue
    name="$(sed -E 's/^[^A-Za-z0-9_.]//' <<<"$match")"
    [[ "$name" =~ \.(hpp|cpp|md|sh|cmake)$ ]] || continue  # forkjoinConfig.cmake.in, x.cpp.o: other files
    [[ -n "${ignored[${name##*/}]:-}" ]] && continue
    [[ -n "$(resolve "$file" "$name")" ]] || report "$file" "$line" "$name"
  done < <(grep -n -o -E '(^|[^A-Za-z0-9_./+${}*<%@-])(\.\.?/)*[A-Za-z0-9_][A-Za-z0-9_./+-]*\.(hpp|cpp|md|sh|cmake)(\.[A-Za-z0-9_]+)*\b' \
    <<<"$text")

  # (b) sections of a named Markdown file: X.md "Title", X.md, "Title", X.md §"Title", X.md §N.
  while IFS=: read -r line match; do
    [[ -z "$match" ]] && continue
    name="$(grep -o -E '^[A-Za-z0-9_./-]*\.md' <<<"$match")"
    rest="${match#"$name"}"
    [[ -n "${ignored[${name##*/}]:-}" ]] && continue
    if [[ "$rest" =~ \"([^\"]*) ]]; then
      title="$(sed -E 's/[[:space:]]+$//' <<<"${BASH_REMATCH[1]}")"
      [[ -z "$title" ]] && continue
      section_exists "$file" "$name" "$title" "" || report "$file" "$line" "$name \"$title\""
    elif [[ "$rest" =~ ([0-9]+(\.[0-9]+)*) ]]; then
      number="${BASH_REMATCH[1]}"
      section_exists "$file" "$name" "" "$number" || report "$file" "$line" "$name §$number"
    fi
  done < <(grep -n -o -E '[A-Za-z0-9_./-]*[A-Za-z0-9_]\.md((, *| +|,? *§ *)"[^"]*"?|,? *§ *[0-9]+(\.[0-9]+)*)' <<<"$text")

  # Files outside the repository that were once cited (the project must stand alone).
  while IFS=: read -r line match; do
    [[ -n "$match" ]] && report "$file" "$line" "$match"
  done < <(grep -n -o -E "\\<${outside_notes[0]}\\>|${outside_notes[1]}" <<<"$text")

  # README sections: README "Title", README: "Title".
  while IFS=: read -r line match; do
    [[ -z "$match" ]] && continue
    [[ "$match" =~ \"([^\"]*) ]] || continue
    title="$(sed -E 's/[[:space:]]+$//' <<<"${BASH_REMATCH[1]}")"
    [[ -z "$title" ]] && continue
    section_exists "$file" "README.md" "$title" "" || report "$file" "$line" "README \"$title\""
  done < <(grep -n -o -E '(^|[^A-Za-z0-9_./-])README:? +"[^"]*"?' <<<"$text")
done

if [[ $broken -gt 0 ]]; then
  echo "check-doc-refs: $broken broken citations in ${#scanned[@]} files"
  exit 1
fi
echo "check-doc-refs: every citation in ${#scanned[@]} files exists"
