# Test support for shell-driven tests (source it): a PATH like this one but without some commands, to play a machine
# where they are not installed without uninstalling anything.
# It must never change the machine: the PATH it prints points at links in a folder of the caller's.

# path_without FOLDER NAME...: prints a PATH in which no NAME is found. Each folder of PATH that holds one of the
# names is replaced by FOLDER/N, links to everything else in it; the other folders stay as they are.
path_without() {
  local scratch=$1 dir name entry index=0 new_path=""
  shift
  local -a dirs keep
  IFS=: read -ra dirs <<< "$PATH"
  for dir in "${dirs[@]}"; do
    [[ -n $dir && -d $dir ]] || continue
    local hides=0
    for name in "$@"; do [[ -e $dir/$name ]] && hides=1; done
    if ((hides)); then
      index=$((index + 1))
      mkdir -p "$scratch/$index"
      keep=()
      for entry in "$dir"/*; do
        for name in "$@"; do [[ ${entry##*/} == "$name" ]] && continue 2; done
        keep+=("$entry")
      done
      ((${#keep[@]} == 0)) || ln -s "${keep[@]}" "$scratch/$index/"
      dir=$scratch/$index
    fi
    new_path+=${new_path:+:}$dir
  done
  echo "$new_path"
}
