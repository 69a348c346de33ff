# Sourced by the set-up scripts: install Debian packages that are missing (as root, or through sudo).
apt_install() {
  local missing=()
  for pkg in "$@"; do dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  local run=()
  [ "$(id -u)" -ne 0 ] && run=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${run[@]}" apt-get update -qq
  "${run[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
}

# python3 -m venv needs Debian's python3-venv unless this Python ships ensurepip (pyenv, python.org builds).
make_venv() {
  python3 -m venv "$1" 2>/dev/null || { rm -rf "$1"; apt_install python3-venv && python3 -m venv "$1"; }
}
