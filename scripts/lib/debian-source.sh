# Sourced by the scripts that fetch public code from Debian's registry
# (fetch-lint-corpus.sh, fetch-program-corpus.sh): a private apt
# configuration with deb-src for bookworm main under CACHE/.apt (the host's
# sources are not changed), and one source tarball fetched through it.
# Needs lib/host-mirror.sh, and $sudo set ("" or "sudo").
#
#   debian_source_init CACHE WHO     WHO names the caller in messages
#   debian_source_fetch NAME VERSION FILE SHA256 DEST
#       `apt-get source --tar-only` of NAME=VERSION, FILE checked against
#       SHA256 (apt also checks it against Debian's signed indices), unpacked
#       into DEST (replaced), DEST/.complete written last.

debian_source_init() {
  debian_source_dir=$1/.apt
  debian_source_who=$2
  debian_source_ready=0
  debian_source_options=(-o "Dir::Etc::sourcelist=$debian_source_dir/sources.list"
    -o "Dir::Etc::sourceparts=$debian_source_dir/parts" -o "Dir::State::Lists=$debian_source_dir/lists"
    -o "Dir::Cache=$debian_source_dir/cache" -o "APT::Get::List-Cleanup=0")
}

# The index of source packages, made (or reused) once per run.
debian_source_index() {
  [ "$debian_source_ready" -eq 1 ] && return
  $sudo mkdir -p "$debian_source_dir/lists/partial" "$debian_source_dir/parts" \
    "$debian_source_dir/cache/archives/partial"
  local mirror
  mirror=$(host_mirror | head -n 1)
  [ -n "$mirror" ] || { echo "$debian_source_who: no Debian mirror in apt's sources" >&2; exit 1; }
  echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror bookworm main" |
    $sudo tee "$debian_source_dir/sources.list" >/dev/null
  if ! ls "$debian_source_dir/lists/"*Sources* >/dev/null 2>&1; then
    $sudo apt-get "${debian_source_options[@]}" update -qq
  fi
  debian_source_ready=1
}

# Downloads into a temporary folder (apt's sandbox user must be able to write
# there), checks, unpacks; DEST is left without .complete if anything fails.
debian_source_download() {  # NAME VERSION KIND TMP: KIND source (a tarball) or deb
  if [ "$3" = source ]; then
    debian_source_index
    (cd "$4" && $sudo apt-get "${debian_source_options[@]}" source --tar-only --download-only -qq \
      "$1=$2" >/dev/null)
  else
    (cd "$4" && $sudo apt-get download -qq "$1=$2" >/dev/null)
  fi
}

debian_source_fetch() {  # NAME VERSION FILE SHA256 DEST [KIND]
  local name=$1 version=$2 file=$3 sha256=$4 dest=$5 kind=${6:-source} tmp
  tmp=$(mktemp -d)
  if id _apt >/dev/null 2>&1; then $sudo chown _apt "$tmp"; fi
  debian_source_download "$name" "$version" "$kind" "$tmp"
  echo "$sha256  $tmp/$file" | sha256sum -c --quiet -
  $sudo rm -rf "$dest"
  $sudo mkdir -p "$dest"
  if [ "$kind" = source ]; then
    $sudo tar -xaf "$tmp/$file" -C "$dest" --strip-components=1
  else
    $sudo dpkg-deb -x "$tmp/$file" "$dest"
  fi
  $sudo touch "$dest/.complete"
  $sudo rm -rf "$tmp"
}
