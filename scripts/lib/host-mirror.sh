# Sourced by the scripts that make Debian roots (test-lane.sh, test-deb.sh).
# host_mirror: the host's Debian mirror, the first archive URI (not -security)
# in its apt sources, one per line (deb822 .sources first, then .list files).
host_mirror() {
  local f
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -e "$f" ] || continue
    awk 'BEGIN { RS = ""; FS = "\n" }
      {
        uris = ""; suites = ""
        for (i = 1; i <= NF; i++) {
          if ($i ~ /^URIs:/) { uris = $i; sub(/^URIs:[ \t]*/, "", uris) }
          if ($i ~ /^Suites:/) { suites = $i }
        }
        if (uris != "" && suites !~ /-security/) { split(uris, u, /[ \t]+/); print u[1]; exit }
      }' "$f"
  done
  cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
    awk '$1 == "deb" && $0 !~ /security/ { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; break } }' || true
}
