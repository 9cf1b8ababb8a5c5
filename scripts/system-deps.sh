#!/usr/bin/env bash
# The Debian packages polygate's local providers and tests use. As root with apt-get, installs the
# missing ones; otherwise names them and fails, so a test run never dies halfway on a missing tool.
set -euo pipefail
declare -A need=(
  [espeak-ng]=espeak-ng      # local-speech: text to speech
  [ffmpeg]=ffmpeg            # local-speech and sandbox-tune: audio encoding
  [ffprobe]=ffmpeg           # tests: codec and duration checks
  [pocketsphinx_continuous]=pocketsphinx # local-speech: speech to text
  [redis-server]=redis-server # tests: the multi-instance driver on a real Redis
  [prometheus]=prometheus    # tests: Grafana panel queries on a real Prometheus
  [promtool]=prometheus
  [chromium]=chromium        # tests: the operator console driven in a real browser (playwright-core)
)
missing=()
for bin in "${!need[@]}"; do
  command -v "$bin" >/dev/null 2>&1 || missing+=("${need[$bin]}")
done
# pocketsphinx's English model ships separately on some releases.
[ -d /usr/share/pocketsphinx/model/en-us ] || missing+=(pocketsphinx-en-us)
[ ${#missing[@]} -eq 0 ] && exit 0
mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing system packages: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  # The Debian services start themselves on install; the tests start their own instances.
  for svc in redis-server prometheus; do (service "$svc" stop || true) >/dev/null 2>&1; done
  exit 0
fi
echo "missing system packages: ${missing[*]}" >&2
echo "install them with: sudo apt-get install -y ${missing[*]}" >&2
exit 1
