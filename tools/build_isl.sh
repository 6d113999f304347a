#!/usr/bin/env bash
# Builds isl with small-integer arithmetic (imath-32) into PREFIX, as a static library, from Debian's source
# package of the isl that libisl-dev installed: bash tools/build_isl.sh PREFIX
#
# Why (DESIGN.md, "isl's integers"): Debian's libisl is built on GMP, where every coefficient is a heap-allocated
# bignum; on the kernels users tune, GMP and malloc were half of generate_code's time. imath-32 keeps the small
# coefficients isl nearly always sees in machine words (islpy, under loopy, builds isl the same way). The same
# version, so the headers and behaviour match the system's; static, so libloom needs no second libisl.so.23 beside
# the system's, and its version script keeps isl's symbols out of its exports.
# The patches in tools/isl_patches/VERSION/ are applied to the source (each says which isl bug it fixes).
# Nothing is rebuilt when PREFIX already holds this version with these patches.
set -euo pipefail
prefix=$(realpath -m "${1:?usage: bash tools/build_isl.sh PREFIX}")
version=$(dpkg-query -W -f='${source:Upstream-Version}' libisl-dev)
patches=("$(dirname "$(realpath "$0")")/isl_patches/$version"/*.patch)
[ -e "${patches[0]}" ] || patches=()
patched=$(cat "${patches[@]}" /dev/null | sha1sum | cut -c1-12)
stamp="$prefix/.loom-isl-$version-imath-32-$patched"
if [ -f "$stamp" ] && [ -f "$prefix/lib/libisl.a" ]; then
  echo "isl $version (imath-32) already in $prefix"
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Debian's source packages, from the mirrors the machine's own lists name, in private apt state: the machine's
# sources stay as they are.
mkdir -p "$work/apt/lists/partial" "$work/apt/sources"
if [ -f /etc/apt/sources.list.d/debian.sources ]; then
  sed 's/^Types:.*/Types: deb-src/' /etc/apt/sources.list.d/debian.sources > "$work/apt/sources/debian-src.sources"
fi
if [ -f /etc/apt/sources.list ]; then
  sed -n 's/^deb /deb-src /p' /etc/apt/sources.list > "$work/apt/sources/debian-src.list"
fi
apt_private=(-o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$work/apt/sources"
             -o "Dir::State::Lists=$work/apt/lists" -o "APT::Sandbox::User=root")
apt-get "${apt_private[@]}" update -qq
(cd "$work" && apt-get "${apt_private[@]}" source --download-only -qq "isl=$(dpkg-query -W -f='${source:Version}' libisl-dev)")
tar xf "$work"/isl_"$version".orig.tar.* -C "$work"

cd "$work/isl-$version"
for p in "${patches[@]}"; do patch -p1 -s < "$p"; done
quiet() {  # quiet LOG COMMAND...: its output only when it fails
  "${@:2}" > "$work/$1" 2>&1 || { tail -40 "$work/$1"; echo "tools/build_isl.sh: $2 failed" >&2; return 1; }
}
rm -rf "$prefix" && mkdir -p "$prefix"
quiet configure.log ./configure --prefix="$prefix" --with-int=imath-32 --disable-shared --with-pic CFLAGS="-O2 -g"
quiet make.log make -j "$(nproc)"
quiet install.log make install
# isl's configure writes its own build's include folder for imath into the .pc file, a relative path the
# installed headers do not need.
sed -i 's| -I\./imath_wrap||' "$prefix/lib/pkgconfig/isl.pc"
touch "$stamp"
echo "isl $version (imath-32) installed in $prefix"
