#!/usr/bin/env bash
# Build the Gomocup package on Linux: dist/pbrain-wuzi64.exe and dist/wuzi.zip (the exe at the
# zip's root).
#
# The exe is cross-built with Debian's own Rust 1.63 toolchain (rustc 1.63, cargo 1.65), which
# ships the x86_64-pc-windows-gnu standard library; the mingw-w64 gcc links it. That doubles as
# the proof that the crate still builds with Rust 1.63 (`rust-version` in Cargo.toml): the lib,
# the binary, the tests and the benches are all compiled by 1.63 here.
#
# Debian's cargo cannot fetch from the registry, so the dependencies are first copied into
# `vendor/` (git-ignored) by the normal, newer cargo, exactly as Cargo.lock pins them.
#
# Needs: Debian/Ubuntu with apt (run as root or with sudo; packages already installed are not
# touched), and a rustup cargo on PATH for the vendoring step.
#
# Environment:
#   WUZI_NO_APT=1       never call apt-get; fail if a tool is missing
#   WUZI_SKIP_SMOKE=1   do not run the exe under wine at the end
#   WINEPREFIX          the wine prefix for the smoke test (default: wine's own, ~/.wine)
set -euo pipefail
cd "$(dirname "$0")/.."

target=x86_64-pc-windows-gnu
target_dir=target/windows # kept apart from the host build: another rustc, other flags
vendor_dir=vendor
exe_name=pbrain-wuzi64.exe
zip_name=wuzi.zip
max_bytes=8000000 # Gomocup: at most 8 MB

packages=(rustc cargo libstd-rust-dev-windows gcc-mingw-w64-x86-64 binutils-mingw-w64-x86-64
  wine wine64 zip)

say() { printf '[windows-package] %s\n' "$*"; }
die() {
  printf '\n[windows-package] error: %s\n' "$*" >&2
  exit 1
}
now() { date +%s; }
t0=$(now)

# --- 1. packages ------------------------------------------------------------------------------
missing=()
for p in "${packages[@]}"; do
  if [[ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)" != ii* ]]; then
    missing+=("$p")
  fi
done
if ((${#missing[@]})); then
  [[ "${WUZI_NO_APT:-}" == 1 ]] && die "missing packages: ${missing[*]} (WUZI_NO_APT=1)"
  command -v apt-get >/dev/null 2>&1 || die "missing packages: ${missing[*]}, and no apt-get"
  sudo=()
  if [[ $(id -u) != 0 ]]; then
    command -v sudo >/dev/null 2>&1 || die "missing packages: ${missing[*]}; run as root"
    sudo=(sudo -n)
  fi
  say "installing ${missing[*]}"
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi
say "packages ready ($(($(now) - t0)) s)"

deb_rustc=/usr/bin/rustc
deb_cargo=/usr/bin/cargo
linker=x86_64-w64-mingw32-gcc
strip=x86_64-w64-mingw32-strip
for tool in "$deb_rustc" "$deb_cargo" "$linker" "$strip" zip; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool not found"
done
rustc_version=$("$deb_rustc" --version)
[[ "$rustc_version" == "rustc 1.63."* ]] || die "expected Debian's rustc 1.63, got: $rustc_version"
[[ -d /usr/lib/rustlib/$target ]] || die "no $target std in /usr/lib/rustlib (libstd-rust-dev-windows)"

# --- 2. vendor the dependencies with the normal cargo -----------------------------------------
# The newer cargo from rustup (the first `cargo` on PATH that is not Debian's).
vendor_cargo=
for c in "$(command -v cargo || true)" "${CARGO_HOME:-$HOME/.cargo}/bin/cargo"; do
  if [[ -n "$c" && -x "$c" && "$(readlink -f "$c")" != "$(readlink -f "$deb_cargo")" ]]; then
    vendor_cargo=$c
    break
  fi
done
[[ -n "$vendor_cargo" ]] || die "a rustup cargo is needed to vendor the dependencies"

lock_sum=$(sha256sum Cargo.lock | cut -d' ' -f1)
stamp="$vendor_dir/.wuzi-cargo-lock.sha256"
if [[ -f "$stamp" && "$(cat "$stamp")" == "$lock_sum" ]]; then
  say "vendor/ matches Cargo.lock"
else
  say "vendoring the dependencies with $("$vendor_cargo" --version)"
  rm -rf "$vendor_dir"
  # --locked: Cargo.lock is used as it is; a stale lock fails here instead of being rewritten.
  "$vendor_cargo" vendor --locked --versioned-dirs --quiet "$vendor_dir" >/dev/null
  echo "$lock_sum" >"$stamp"
fi
say "vendored ($(($(now) - t0)) s)"

# --- 3. build with Rust 1.63 ------------------------------------------------------------------
deb_build() {
  # Only Debian's tools: rustup's rustc (on PATH) has no 1.63 and may lack the Windows std.
  env -u RUSTFLAGS -u CARGO_BUILD_TARGET -u CARGO_TARGET_DIR -u RUSTC_WRAPPER \
    RUSTC="$deb_rustc" RUSTDOC=/usr/bin/rustdoc \
    "$deb_cargo" "$@" --locked --offline --target "$target" --target-dir "$target_dir" \
    --config "source.crates-io.replace-with=\"vendored-sources\"" \
    --config "source.vendored-sources.directory=\"$vendor_dir\"" \
    --config "target.$target.linker=\"$linker\"" \
    --config "target.$target.rustflags=[\"--remap-path-prefix=$PWD=wuzi\"]"
}
# cargo 1.65 warns about the [lints] table it does not know; nothing else is expected.
filter() { grep -v -e '^warning: unused manifest key: lints$' -e '^ *Compiling ' -e '^ *Checking ' || true; }

say "building the release exe with $rustc_version for $target"
deb_build build --release 2>&1 | filter || die "the Rust 1.63 release build failed"
say "built ($(($(now) - t0)) s)"

# --- 4. strip, size, zip ----------------------------------------------------------------------
mkdir -p dist
rm -f "dist/$exe_name" "dist/$zip_name"
"$strip" -o "dist/$exe_name" "$target_dir/$target/release/pbrain-wuzi.exe"
size=$(stat -c %s "dist/$exe_name")
((size < max_bytes)) || die "dist/$exe_name is $size bytes, over the Gomocup limit of $max_bytes"
# Only Windows system DLLs may be imported: the zip holds nothing else.
imports=$(x86_64-w64-mingw32-objdump -p "dist/$exe_name" | awk '/DLL Name:/ {print tolower($3)}' | sort -u)
for dll in $imports; do
  case "$dll" in
  kernel32.dll | msvcrt.dll | advapi32.dll | bcrypt.dll | ntdll.dll | ws2_32.dll | userenv.dll) ;;
  *) die "dist/$exe_name imports $dll, which a bare Windows may not have" ;;
  esac
done
# Fixed time stamp inside the zip: the same commit gives the same zip.
epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || now)}
touch -d "@$epoch" "dist/$exe_name"
(cd dist && zip -X -q "$zip_name" "$exe_name")
say "dist/$exe_name: $size bytes; dist/$zip_name: $(stat -c %s "dist/$zip_name") bytes, holds:"
zip -sf "dist/$zip_name" | sed -n 's/^  */    /p'

# --- 5. smoke test under wine -----------------------------------------------------------------
if [[ "${WUZI_SKIP_SMOKE:-}" != 1 ]]; then
  export WINEDEBUG=-all
  out=$(printf 'START 15\nINFO timeout_turn 1000\nBEGIN\n' | timeout 120 wine "dist/$exe_name" 2>/dev/null) ||
    die "the exe failed under wine (output: $out)"
  grep -qx 'OK' <<<"$out" && grep -Eqx '[0-9]+,[0-9]+' <<<"$out" ||
    die "unexpected answer under wine: $out"
  say "wine: answered OK and $(grep -Ex '[0-9]+,[0-9]+' <<<"$out")"
fi

# --- 6. the rest of the crate (unit tests, transcript runner, benches) with Rust 1.63 -----------
# Last, so that the package above exists even when only test code needs a newer Rust.
say "checking the tests and benches with $rustc_version"
deb_build check --all-targets 2>&1 | filter ||
  die "the Rust 1.63 check of the tests and benches failed (the exe in dist/ is fine)"
say "done in $(($(now) - t0)) s"
