#!/usr/bin/env bash
# Builds the codegen-dependent suites under the compiler flags packagers and
# users build with, not the project's Release (-O3), and runs them: the
# stack and register wipes (backends/include/hwaccel/wipe_stack.hpp) are
# sized by what the compiler spills, so a flag that changes frames or
# register allocation can leave a secret the Release build never does
# (docs/testing.md, "Compiler flags").
#
# usage: scripts/flags-matrix.sh [-r BUILD_ROOT] [-s SUITES] [-k] [SET...]
#   SET          flag sets by name (default: all; see --list)
#   -r ROOT      build directories go to ROOT/SET (default: build-flags/)
#   -s SUITES    comma-separated, of: residue (backend_tests, the provider's
#                residue test), models (PHE and GFNI under their instruction
#                models), ct (the constant-time checks: memcheck and ptrace
#                trace, ~5 min); default residue,models,ct
#   -k           keep going past a set whose configure or build fails
#   --list       print the flag sets and exit
# Exit status: 0 if every set passed. One build at a time, at nice 19, with
# ccache when it is installed.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
root=$top/build-flags
suites=residue,models,ct
keep_going=0
jobs=$(nproc)

# Fedora's %{optflags} (x86_64) and %{build_ldflags}, less its specs files.
fedora="-O2 -flto=auto -ffat-lto-objects -fexceptions -g -grecord-gcc-switches -pipe -Wall -Wp,-D_FORTIFY_SOURCE=3 -Wp,-D_GLIBCXX_ASSERTIONS -fstack-protector-strong -m64 -mtune=generic -fasynchronous-unwind-tables -fstack-clash-protection -fcf-protection -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer"
# name|CC|CXX|compile flags (C and C++)|link flags|ctest entries left out.
# Debian's is what dpkg-buildflags prints on bookworm (CPPFLAGS folded in,
# as debhelper's cmake build does), with the prefix map of this tree.
# native: the build's own CPU's instructions, which valgrind (memcheck) and
# qemu's CPU models (the GFNI suite) cannot run. clang14: Debian 12's
# clang, which some distributions and users build with (the x86 SM4 files
# give clang their ISA regions through "#pragma clang attribute").
sets=(
  "debian|gcc|g++|-g -O2 -ffile-prefix-map=$top=. -fstack-protector-strong -Wformat -Werror=format-security -Wdate-time -D_FORTIFY_SOURCE=2|-Wl,-z,relro|"
  "ubuntu|gcc|g++|-O2 -fstack-protector-strong -fstack-clash-protection -fcf-protection -D_FORTIFY_SOURCE=3 -g|-Wl,-z,relro -Wl,-z,now|"
  "fedora|gcc|g++|$fedora|$fedora -Wl,-z,relro -Wl,-z,now|"
  "native|gcc|g++|-O2 -march=native||sm4_constant_time|gfni_backend_tests_qemu"
  "os|gcc|g++|-Os||"
  "o1|gcc|g++|-O1||"
  "clang14|clang-14|clang++-14|-O2||"
)
default_sets=(debian ubuntu fedora native os o1 clang14)

set_names=()
for s in "${sets[@]}"; do set_names+=("${s%%|*}"); done

wanted=()
while [ $# -gt 0 ]; do
  case $1 in
    -r) root=$(realpath -m "$2"); shift 2 ;;
    -s) suites=$2; shift 2 ;;
    -k) keep_going=1; shift ;;
    --list)
      for s in "${sets[@]}"; do IFS='|' read -r n cc cxx fl ld skip <<<"$s"; printf '%-8s %s: %s  [ld: %s]\n' "$n" "$cxx" "$fl" "$ld"; done
      exit 0 ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "flags-matrix: unknown option $1" >&2; exit 2 ;;
    *) wanted+=("$1"); shift ;;
  esac
done
[ ${#wanted[@]} -gt 0 ] || wanted=("${default_sets[@]}")
for w in "${wanted[@]}"; do
  [[ " ${set_names[*]} " == *" $w "* ]] || { echo "flags-matrix: unknown flag set '$w' (known: ${set_names[*]})" >&2; exit 2; }
done

# Targets to build and ctest entries to run, per suite.
targets=()
tests=()
IFS=',' read -ra suite_list <<<"$suites"
for suite in "${suite_list[@]}"; do
  case $suite in
    residue) targets+=(hwaccel_backend_tests hwaccel_provider_residue_memcpy_tests)
             tests+=(backend_tests provider_residue_memcpy_tests) ;;
    models)  targets+=(hwaccel_phe_backend_tests hwaccel_gfni_backend_tests)
             tests+=(phe_backend_tests phe_backend_tests_monte gfni_backend_tests gfni_backend_tests_qemu) ;;
    ct)      targets+=(hwaccel_sm4_ct_check hwaccel_sm4_ct_trace)
             tests+=(sm4_constant_time sm4_constant_time_trace) ;;
    *) echo "flags-matrix: unknown suite '$suite' (residue, models, ct)" >&2; exit 2 ;;
  esac
done
test_regex="^($(IFS='|'; echo "${tests[*]}"))\$"

launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR=$top
fi

mkdir -p "$root"
summary=()
failed=0
for w in "${wanted[@]}"; do
  for s in "${sets[@]}"; do [ "${s%%|*}" = "$w" ] && break; done
  IFS='|' read -r name cc cxx flags ldflags skip <<<"$s"
  dir=$root/$name
  log=$dir/flags-matrix.log
  mkdir -p "$dir"
  : >"$log"
  echo "== $name: $cxx $flags${ldflags:+  [ld: $ldflags]}"
  start=$(date +%s)
  result=
  if ! command -v "$cxx" >/dev/null; then
    result="skipped ($cxx not installed)"
  elif ! CC=$cc CXX=$cxx cmake -S "$top" -B "$dir" -DCMAKE_BUILD_TYPE=None "${launcher[@]}" \
         "-DCMAKE_C_FLAGS=$flags" "-DCMAKE_CXX_FLAGS=$flags" \
         "-DCMAKE_EXE_LINKER_FLAGS=$ldflags" "-DCMAKE_SHARED_LINKER_FLAGS=$ldflags" \
         "-DCMAKE_MODULE_LINKER_FLAGS=$ldflags" >>"$log" 2>&1; then
    result="FAIL (configure)"
  fi
  t_conf=$(date +%s)
  if [ -z "$result" ]; then
    # Only the targets this configuration defines (no valgrind headers: no
    # memcheck binary; not x86-64: no models).
    have=$(cmake --build "$dir" --target help 2>/dev/null)
    build=()
    for t in "${targets[@]}"; do grep -q "^\.\.\. $t\$" <<<"$have" && build+=("$t"); done
    if ! nice -n 19 cmake --build "$dir" -j"$jobs" --target "${build[@]}" >>"$log" 2>&1; then
      result="FAIL (build)"
    fi
  fi
  t_build=$(date +%s)
  if [ -z "$result" ]; then
    exclude=()
    [ -z "$skip" ] || exclude=(-E "^($skip)\$")
    if (cd "$dir" && nice -n 19 ctest -j"$jobs" -R "$test_regex" "${exclude[@]}" --output-on-failure) >>"$log" 2>&1; then
      result="pass ($(grep -Eo 'out of [0-9]+' "$log" | tail -1 | grep -Eo '[0-9]+') tests)"
    else
      result="FAIL ($(grep -Eo '[0-9]+ tests failed out of [0-9]+' "$log" | tail -1))"
    fi
  fi
  end=$(date +%s)
  summary+=("$(printf '%-8s %-52s %5ds %5ds %5ds %5ds' "$name" "$result" \
    $((t_conf - start)) $((t_build - t_conf)) $((end - t_build)) $((end - start)))")
  echo "   $result (log: $log)"
  if [[ $result == FAIL* ]]; then
    failed=1
    # What failed: the build's errors, or the failing tests and the residue
    # test's findings (what was left where, after which entry point).
    grep -E "error:|^\s+[0-9]+ - |\*\*\*Failed| in sp-[0-9]+| in [a-z0-9]+ byte |hits in all|^  [a-z_]+\$|^  engine " "$log" \
      | grep -v "^\[" | awk '!seen[$0]++' | head -40 | sed 's/^/   | /'
    if [[ $result == "FAIL (configure)" || $result == "FAIL (build)" ]] && [ $keep_going = 0 ]; then break; fi
  fi
done

echo
printf '%-8s %-52s %6s %6s %6s %6s\n' "set" "result" "conf" "build" "tests" "total"
printf '%s\n' "${summary[@]}"
exit $failed
