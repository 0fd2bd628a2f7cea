#!/usr/bin/env bash
# Does Qt's X11 (xcb) platform plugin find every system library it needs? Prints what is
# missing and the command that installs it; as root with apt-get, installs it.
# Exit 0: nothing missing (or installed now); 1: something is still missing.
set -uo pipefail
cd "$(dirname "$0")/.."
plugin=$(.venv/bin/python -c "import pathlib, PySide6; print(pathlib.Path(PySide6.__file__).parent / 'Qt/plugins/platforms/libqxcb.so')" 2>/dev/null) || exit 0
[ -f "$plugin" ] || exit 0
missing=$(ldd "$plugin" 2>/dev/null | awk '/not found/ {print $1}')
# Qt 6.5+ loads libxcb-cursor at run time (dlopen), so ldd cannot see it.
ldconfig -p 2>/dev/null | grep -q 'libxcb-cursor\.so\.0' || missing="$missing libxcb-cursor.so.0"
missing=$(printf '%s\n' $missing | sort -u | xargs)
[ -z "$missing" ] && exit 0

# soname -> Debian/Ubuntu package: libxcb-icccm.so.4 -> libxcb-icccm4, libxkbcommon-x11.so.0 -> libxkbcommon-x11-0
debian_package() {
  local base=${1%%.so*} version=${1##*.so.}
  version=${version%%.*}
  case "$base" in
    libEGL) echo libegl1 ;; libGL) echo libgl1 ;; libOpenGL) echo libopengl0 ;;
    libX11-xcb) echo libx11-xcb1 ;; libSM) echo libsm6 ;; libICE) echo libice6 ;;
    libdbus-1) echo libdbus-1-3 ;;
    *) base=$(echo "$base" | tr '[:upper:]' '[:lower:]'); [[ "$base" =~ [0-9]$ ]] && echo "$base-$version" || echo "$base$version" ;;
  esac
}
packages=""
for so in $missing; do packages="$packages $(debian_package "$so")"; done
packages=$(printf '%s\n' $packages | sort -u | xargs)
echo "The window needs system libraries that are not installed: $missing" >&2
if command -v apt-get >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && [ -z "${AGENTMAKER_NO_INSTALL:-}" ]; then
    echo "Installing them: apt-get install -y $packages" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $packages && exit 0
  fi
  echo "Install them with:  sudo apt-get install $packages" >&2
elif command -v dnf >/dev/null 2>&1; then
  echo "Install them with:  sudo dnf install xcb-util-cursor xcb-util-wm xcb-util-keysyms xcb-util-image xcb-util-renderutil libxkbcommon-x11" >&2
elif command -v pacman >/dev/null 2>&1; then
  echo "Install them with:  sudo pacman -S xcb-util-cursor xcb-util-wm xcb-util-keysyms xcb-util-image xcb-util-renderutil libxkbcommon-x11" >&2
elif command -v zypper >/dev/null 2>&1; then
  echo "Install them with:  sudo zypper install libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-image0 libxcb-render-util0 libxkbcommon-x11-0" >&2
else
  echo "Install your distribution's packages that provide: $missing" >&2
fi
exit 1
