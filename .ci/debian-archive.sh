# Sourced by .ci/postgres.sh and .ci/realcode.sh. debian_archive prints the
# Debian archive the machine's apt already uses for bookworm (deb822
# .sources first, then one-line .list files), so that source packages come
# from the same mirror; it prints nothing when there is none.
debian_archive() {
  local f archive=""
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    archive=$(awk '/^URIs:/ {u=$2} /^Suites:/ { for (i=2;i<=NF;i++) if ($i=="bookworm") { print u; exit } }' "$f")
    [ -n "$archive" ] && break
  done
  if [ -z "$archive" ]; then
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
      [ -f "$f" ] || continue
      archive=$(awk '$1=="deb" && $3=="bookworm" {print $2; exit}' "$f")
      [ -n "$archive" ] && break
    done
  fi
  printf '%s' "$archive"
}
