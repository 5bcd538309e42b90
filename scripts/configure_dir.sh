# configure_dir DIR [CMAKE_ARGS...]: configures DIR with Ninja. A directory an
# earlier version configured with Make is emptied first (CMake refuses to
# change the generator of a build directory).
configure_dir() {
  local dir=$1
  shift
  if [ -f "$dir/CMakeCache.txt" ] && ! grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' "$dir/CMakeCache.txt"; then
    rm -rf "$dir"
  fi
  cmake -S . -B "$dir" -G Ninja "$@" >/dev/null
}
