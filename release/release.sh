#!/usr/bin/env bash
# release/release.sh vX.Y.Z cuts release vX.Y.Z of compute-go, as RELEASING.md says: it checks the
# API files against CHANGELOG.md, bumps the version (Version, CHANGELOG.md's head, the modules'
# requirements of each other, go.work), writes api/*.txt, runs CI, commits, tags the five modules
# in dependency order, and cross-compiles compute, compute-fake and terraform-provider-compute into
# dist/vX.Y.Z with SHA256SUMS. It pushes nothing: RELEASING.md has the push.
set -euo pipefail
cd "$(dirname "$0")/.."
version=${1:?usage: release/release.sh vX.Y.Z}
# The tag prefixes, in dependency order: the SDK, then the modules that require it, then the CLI
# and the Terraform provider (which require the SDK and ratelimit/redis).
prefixes=("" "otel/" "ratelimit/redis/" "cmd/compute/" "terraform-provider-compute/")

[ -z "$(git status --porcelain)" ] || { echo "release: the working tree has changes; commit them first"; exit 1; }
for p in "${prefixes[@]}"; do
  if git rev-parse -q --verify "refs/tags/$p$version" >/dev/null; then echo "release: tag $p$version exists"; exit 1; fi
done

echo "== every API change since the last release is named in CHANGELOG.md"
go test -count=1 -run '^TestAPIFiles$' .
echo "== bump to $version"
go run ./release bump "$version"
go test -count=1 -run '^TestAPIFiles$' . -release-api
go test -count=1 -run '^TestAPIFiles$|^TestVersionIsTheChangelogsHead$' .
echo "== CI"
bash .ci/run

git add -A
git commit -q -m "Release $version"
for p in "${prefixes[@]}"; do
  git tag -a "$p$version" -m "compute-go $p$version"
  echo "tagged $p$version"
done

echo "== binaries"
go run ./release build -o "dist/$version" -version "$version"
(cd "dist/$version" && sha256sum -c SHA256SUMS >/dev/null)
echo "release $version: committed and tagged; binaries and SHA256SUMS in dist/$version"
