#!/usr/bin/env bash
# scripts/setup.sh's package steps on simulated machines: apt-get, dpkg-query, sudo, cmake and nvcc are stubs that log
# what they are asked, apt-cache is the real one reading a fake apt folder (APT_CONFIG) whose only lists are
# compressed, and PATH has no browser. Checks that setup installs Chromium wherever the lists offer a real package,
# stops on a failed `apt-get update` or install, tells a snap stub from a browser, and leaves a ready machine alone.
# It must never install, refresh or build anything for real, nor read the machine's own package lists or build folder.
# Usage: setup_packages_test.sh REPOSITORY_ROOT
set -euo pipefail
root=$1
source "$root/tests/support/path_without.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/kseek-setup-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
arch=$(dpkg --print-architecture)
failures=0
fail() { echo "FAILED: $scenario: $*"; echo "---- setup's output"; cat "$work/out"; echo "---- stub log"; cat "$log"; failures=$((failures + 1)); }

# ---- stubs ---------------------------------------------------------------------------------------------------------
stubs=$work/stubs
installed=$work/installed  # what the apt-get stub "installs" (a browser) appears here, on PATH
mkdir -p "$stubs" "$installed"
cat > "$stubs/apt-get" <<'STUB'
#!/usr/bin/env bash
echo "apt-get $*" >> "$FAKE_LOG"
case " $* " in
  *" update "*) exit "${FAKE_UPDATE_EXIT:-0}" ;;
  *" install "*)
    [[ ${FAKE_INSTALL_EXIT:-0} == 0 ]] || exit "$FAKE_INSTALL_EXIT"
    for package in "$@"; do
      [[ $package == chromium || $package == chromium-browser ]] || continue
      printf '#!/bin/sh\nexit 0\n' > "$FAKE_INSTALLED/$package"
      chmod +x "$FAKE_INSTALLED/$package"
    done ;;
esac
exit 0
STUB
cat > "$stubs/dpkg-query" <<'STUB'
#!/usr/bin/env bash
package=${*: -1}
[[ " $FAKE_MISSING " == *" $package "* ]] && exit 1
printf 'install ok installed'
STUB
printf '#!/usr/bin/env bash\necho "cmake $*" >> "$FAKE_LOG"\n' > "$stubs/cmake"
printf '#!/bin/sh\nexit 0\n' > "$stubs/nvcc"
printf '#!/bin/sh\nexec "$@"\n' > "$stubs/sudo"
chmod +x "$stubs"/*
base_path=$(path_without "$work/path" chromium chromium-browser google-chrome google-chrome-stable)

# ---- fake apt folders ----------------------------------------------------------------------------------------------
# apt_root NAME COMPRESSOR [PACKAGE VERSION DEPENDS]...: an apt folder with one source whose Packages list exists
# only compressed with COMPRESSOR (lz4, gzip, xz or zstd), as on a machine with `Acquire::GzipIndexes`.
apt_root() {
  local dir=$work/apt/$1 compressor=$2 extension
  shift 2
  case $compressor in lz4) extension=lz4 ;; gzip) extension=gz ;; xz) extension=xz ;; zstd) extension=zst ;; esac
  mkdir -p "$dir/etc/apt/apt.conf.d" "$dir/etc/apt/sources.list.d" "$dir/etc/apt/preferences.d" \
           "$dir/var/lib/apt/lists/partial" "$dir/var/lib/dpkg" "$dir/var/cache/apt/archives/partial"
  : > "$dir/var/lib/dpkg/status"
  echo "deb [trusted=yes] http://packages.invalid/debian stable main" > "$dir/etc/apt/sources.list"
  local packages=$work/Packages.$1
  : > "$packages"
  while (($#)); do
    printf 'Package: %s\nVersion: %s\nArchitecture: %s\nMaintainer: nobody <nobody@packages.invalid>\n' \
           "$1" "$2" "$arch" >> "$packages"
    [[ -n $3 ]] && printf '%s\n' "$3" >> "$packages"
    printf 'Filename: pool/%s_%s.deb\nSize: 1\nDescription: %s\n\n' "$1" "$arch" "$1" >> "$packages"
    shift 3
  done
  "$compressor" -c < "$packages" > "$dir/var/lib/apt/lists/packages.invalid_debian_dists_stable_main_binary-${arch}_Packages.$extension"
  cat > "$dir/apt.conf" <<CONF
Dir "$dir/";
Dir::Etc::Parts "$dir/etc/apt/apt.conf.d/";
Dir::Etc::main "$dir/etc/apt/apt.conf";
Dir::State::status "$dir/var/lib/dpkg/status";
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
CONF
  echo "$dir/apt.conf"
}

# run_setup SCENARIO APT_CONFIG [VAR=VALUE]...: setup.sh from a copy of the repository's scripts/, in a folder of
# the scenario's own (its build/ note kept between runs of one scenario name).
run_setup() {
  scenario=$1
  local apt_config=$2
  shift 2
  mkdir -p "$work/repo/$scenario/scripts"
  cp "$root/scripts/setup.sh" "$work/repo/$scenario/scripts/"
  log=$work/log.$scenario.$RANDOM
  : > "$log"
  rc=0
  env -i HOME="$work" PATH="$stubs:$installed/$scenario:$base_path" APT_CONFIG="$apt_config" FAKE_LOG="$log" \
      FAKE_INSTALLED="$installed/$scenario" FAKE_MISSING="" "$@" \
      bash "$work/repo/$scenario/scripts/setup.sh" > "$work/out" 2>&1 || rc=$?
}
expect_log() { grep -q -- "$1" "$log" || fail "expected a call matching '$1'"; }
expect_no_log() { ! grep -q -- "$1" "$log" || fail "expected no call matching '$1'"; }
expect_out() { grep -qi -- "$1" "$work/out" || fail "expected setup to say '$1'"; }
expect_rc() { if [[ $1 == 0 ]]; then ((rc == 0)) || fail "exit $rc, expected 0"; else ((rc != 0)) || fail "exit 0, expected a failure"; fi; }
ok() { ((failures == before)) && echo "ok: $scenario"; before=$failures; }
before=0

debian=(chromium 120.0.6099.224-1~deb12u1 "Depends: libc6")

# A fresh Debian machine whose lists are compressed (lz4 here): chromium found and installed; every compression apt reads.
for compressor in lz4 gzip xz zstd; do
  command -v "$compressor" > /dev/null || { echo "note: no $compressor here, its lists not tried"; continue; }
  mkdir -p "$installed/fresh-$compressor"
  run_setup "fresh-$compressor" "$(apt_root "debian-$compressor" "$compressor" "${debian[@]}")"
  expect_rc 0; expect_log "apt-get update"; expect_log "apt-get install .*chromium"; expect_log "^cmake"
  [[ -x $installed/fresh-$compressor/chromium ]] || fail "chromium was not installed"
  ok
done
debian_apt=$(apt_root debian-gzip-again gzip "${debian[@]}")

# A failing `apt-get update` stops setup with a message naming it, whether chromium or a build package is missing.
mkdir -p "$installed/update-fails"
run_setup update-fails "$debian_apt" FAKE_UPDATE_EXIT=100
expect_rc 1; expect_out "apt-get update' failed"; expect_no_log "apt-get install"; expect_no_log "^cmake"; ok
mkdir -p "$installed/update-fails-for-cmake"
printf '#!/bin/sh\nexit 0\n' > "$installed/update-fails-for-cmake/chromium"; chmod +x "$installed/update-fails-for-cmake/chromium"
run_setup update-fails-for-cmake "$debian_apt" FAKE_UPDATE_EXIT=100 FAKE_MISSING=cmake
expect_rc 1; expect_out "apt-get update' failed"; expect_no_log "^cmake"; ok

# A failing install of chromium stops setup too: the report tests need it.
mkdir -p "$installed/install-fails"
run_setup install-fails "$debian_apt" FAKE_INSTALL_EXIT=100
expect_rc 1; expect_out "apt-get install .*chromium' failed"; expect_no_log "^cmake"; ok

# Ubuntu 24.04: chromium and chromium-browser are stubs that install a snap. Setup says so, installs nothing, and does
# not refresh the lists again on the next run (a ready machine); it builds both times.
ubuntu_apt=$(apt_root ubuntu lz4 chromium 2:1snap1-0ubuntu2 "Pre-Depends: debconf, snapd" \
                                chromium-browser 2:1snap1-0ubuntu2 "Pre-Depends: debconf, snapd")
mkdir -p "$installed/ubuntu"
run_setup ubuntu "$ubuntu_apt"
expect_rc 0; expect_out "snap"; expect_no_log "apt-get install"; expect_log "^cmake"; ok
run_setup ubuntu "$ubuntu_apt"
expect_rc 0; expect_out "snap"; expect_no_log "apt-get"; expect_log "^cmake"; ok
# A snap stub told by its dependency alone.
mkdir -p "$installed/snap-dependency"
run_setup snap-dependency "$(apt_root snapdep gzip chromium 1.0-1 "Depends: snapd (>= 2.60)")"
expect_rc 0; expect_out "snap"; expect_no_log "apt-get install"; ok

# Lists without any chromium: setup says so and builds.
mkdir -p "$installed/no-package"
run_setup no-package "$(apt_root none gzip cmake 3.25.1-1 "")"
expect_rc 0; expect_out "no usable Chromium package"; expect_no_log "apt-get install"; expect_log "^cmake"; ok

# A ready machine (every package installed, a browser on PATH): no apt-get at all, straight to the build.
mkdir -p "$installed/ready"
printf '#!/bin/sh\nexit 0\n' > "$installed/ready/chromium"; chmod +x "$installed/ready/chromium"
run_setup ready "$debian_apt" FAKE_UPDATE_EXIT=100
expect_rc 0; expect_no_log "apt-get"; expect_log "^cmake"; ok

if ((failures)); then echo "FAILED: $failures expectation(s) of scripts/setup.sh not met"; exit 1; fi
echo "PASSED: scripts/setup.sh on every simulated machine"
