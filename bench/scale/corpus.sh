# The Linux kernel corpus (Debian's linux-source-6.1), cached in $WORK.
# Source it after lib.sh; kernel_corpus sets KERNEL to a git repository of
# the whole tree, and kernel_subset DIRS (comma-separated) sets KERNEL to a
# repository holding only those directories (cached by their list).
KERNEL_DEB_NAME=linux-source-6.1
kernel_corpus() {
  KERNEL="$WORK/linux-6.1"
  if [ ! -f "$KERNEL/.cairn-bench-ready" ]; then
    local deb
    deb=$(ls "$WORK"/${KERNEL_DEB_NAME}_*_all.deb "$HOME"/kernel/${KERNEL_DEB_NAME}_*_all.deb 2>/dev/null | head -1 || true)
    if [ -z "$deb" ]; then
      (cd "$WORK" && apt-get download "$KERNEL_DEB_NAME" >&2)
      deb=$(ls "$WORK"/${KERNEL_DEB_NAME}_*_all.deb | head -1)
    fi
    echo "kernel: extracting $deb" >&2
    local tmp="$WORK/linux-6.1.deb.d"
    rm -rf "$tmp" "$KERNEL"; mkdir -p "$tmp"
    dpkg-deb -x "$deb" "$tmp"
    mkdir -p "$KERNEL"
    nice tar -xJf "$tmp/usr/src/$KERNEL_DEB_NAME.tar.xz" -C "$KERNEL" --strip-components=1
    rm -rf "$tmp"
    # Debian's packaging appends "/*" to the top-level .gitignore after a
    # "Debian packaging" comment, which would hide every file: keep the
    # kernel's own rules only.
    sed -i '/Debian packaging/,$d' "$KERNEL/.gitignore"
    grep -q '^/\*$' "$KERNEL/.gitignore" && { echo "kernel: .gitignore still hides everything" >&2; return 1; }
    (cd "$KERNEL" && git init -q && git add -A && \
      git -c user.name=bench -c user.email=bench@localhost commit -qm "linux-source-6.1 $(basename "$deb")")
    touch "$KERNEL/.cairn-bench-ready"
    echo "/.cairn-bench-ready" >> "$KERNEL/.git/info/exclude"
  fi
  export KERNEL
}

kernel_subset() { # DIRS: comma-separated directories of the tree
  kernel_corpus
  local key; key=$(echo "$1" | tr ',/' '__')
  local sub="$WORK/linux-sub-$key"
  if [ ! -f "$sub/.cairn-bench-ready" ]; then
    rm -rf "$sub"; mkdir -p "$sub"
    local d
    for d in ${1//,/ }; do
      mkdir -p "$sub/$(dirname "$d")"
      cp -r "$KERNEL/$d" "$sub/$d"
    done
    cp "$KERNEL/.gitignore" "$sub/.gitignore"
    (cd "$sub" && git init -q && git add -A && \
      git -c user.name=bench -c user.email=bench@localhost commit -qm "linux-6.1 subset $1")
    touch "$sub/.cairn-bench-ready"
    echo "/.cairn-bench-ready" >> "$sub/.git/info/exclude"
  fi
  KERNEL=$sub
  export KERNEL
}
