#!/usr/bin/env bash
# Installs the pinned real code of the real-code answer suite
# (engine/realcode_test.go), as listed in engine/testdata/realcode/corpora.txt,
# and does nothing for what is already there (safe to run twice):
#   gomod  go mod download MODULE@VERSION (into the Go module cache)
#   deb    apt-get download PACKAGE=VERSION, unpacked with dpkg-deb -x into
#          ${CAIRN_REALCODE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/cairn/realcode}/deb/PACKAGE_VERSION
#   npm    npm pack PACKAGE@VERSION (the registry's tarball), unpacked into
#          .../cairn/realcode/npm/PACKAGE_VERSION (its files under package/)
#   debsrc apt-get source PACKAGE=VERSION from Debian bookworm's source
#          archive (the mirror the machine's apt uses; lists kept apart from
#          the system's), unpacked with its Debian patches applied into
#          .../cairn/realcode/debsrc/PACKAGE_VERSION
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
source "$root/.ci/debian-archive.sh"
dir="${CAIRN_REALCODE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/cairn/realcode}"
updated=
while read -r name kind source version _; do
  case "$name" in '' | '#'*) continue ;; esac
  case "$kind" in
  gomod)
    # outside any module, so no go.mod is read or written
    (cd / && GOFLAGS=-mod=mod go mod download "$source@$version" </dev/null)
    ;;
  deb)
    dest="$dir/deb/${source}_${version}"
    [ -f "$dest/.cairn-installed" ] && continue
    tmp="$(mktemp -d)"
    chmod 755 "$tmp" # apt's _apt user writes the download
    if ! (cd "$tmp" && apt-get download -qq "$source=$version" </dev/null >/dev/null 2>&1); then
      if [ -z "$updated" ]; then
        apt-get update -qq </dev/null
        updated=1
      fi
      (cd "$tmp" && apt-get download -qq "$source=$version" </dev/null >/dev/null)
    fi
    rm -rf "$dest"
    mkdir -p "$dest"
    dpkg-deb -x "$tmp"/*.deb "$dest"
    rm -rf "$tmp"
    touch "$dest/.cairn-installed"
    ;;
  debsrc)
    dest="$dir/debsrc/${source}_${version}"
    [ -f "$dest/.cairn-installed" ] && continue
    archive=$(debian_archive)
    [ -n "$archive" ] || { echo "realcode: $name: no Debian bookworm archive in /etc/apt/sources.list{,.d}" >&2; exit 1; }
    tmp="$(mktemp -d)"
    mkdir -p "$tmp/lists/partial" "$tmp/src"
    echo "deb-src $archive bookworm main" >"$tmp/sources.list"
    apt_src=(-o "Dir::Etc::sourcelist=$tmp/sources.list" -o "Dir::Etc::sourceparts=-"
             -o "Dir::State::Lists=$tmp/lists" -o "APT::Get::List-Cleanup=0" -o "APT::Sandbox::User=root")
    apt-get "${apt_src[@]}" update -qq </dev/null
    (cd "$tmp/src" && apt-get "${apt_src[@]}" source -qq "$source=$version" </dev/null >/dev/null 2>&1) || {
      echo "realcode: $name: apt-get source $source=$version failed" >&2; exit 1; }
    tree=$(find "$tmp/src" -mindepth 1 -maxdepth 1 -type d | head -1)
    [ -n "$tree" ] || { echo "realcode: $name: apt-get source $source=$version produced no source tree" >&2; exit 1; }
    rm -rf "$dest"
    mkdir -p "$(dirname "$dest")"
    mv "$tree" "$dest"
    rm -rf "$tmp"
    touch "$dest/.cairn-installed"
    ;;
  npm)
    dest="$dir/npm/${source}_${version}"
    [ -f "$dest/.cairn-installed" ] && continue
    tmp="$(mktemp -d)"
    (cd "$tmp" && npm pack --silent "$source@$version" </dev/null >/dev/null)
    rm -rf "$dest"
    mkdir -p "$dest"
    tar -xzf "$tmp"/*.tgz -C "$dest"
    rm -rf "$tmp"
    touch "$dest/.cairn-installed"
    ;;
  *)
    echo "realcode: $name: unknown kind $kind" >&2
    exit 1
    ;;
  esac
done <"$root/engine/testdata/realcode/corpora.txt"
echo "realcode: ok ($dir)"
