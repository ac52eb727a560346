# fuzz_sources.sh — sourced by scripts/fuzz.sh and bench/fuzz.sh: the C
# sources the fuzz harness is built from, as their CMakeLists.txt list them.
# shellcheck shell=bash

# tf_lib_sources DIR TARGET: the sources of add_library(TARGET ...) in
# DIR/CMakeLists.txt, as DIR/x.c; generated ones (${CMAKE_CURRENT_BINARY_DIR}/x.c)
# from the same folder of the build tree $build (which must be built)
tf_lib_sources() {
  sed -n "/add_library($2 /,/)/p" "$1/CMakeLists.txt" | tr -s ' ()\t' '\n' | grep '\.c$' |
    sed -e "s|^\${CMAKE_CURRENT_BINARY_DIR}/|$build/$1/|" -e "t" -e "s|^|$1/|"
}

# tf_fuzz_sources: the core's, the exporter's, the graph library's, the CST format's, genapp's and the CLI verbs' sources
tf_fuzz_sources() {
  tf_lib_sources src/core tracefold_core
  tf_lib_sources src/export tracefold_export
  tf_lib_sources src/graph tracefold_graph
  tf_lib_sources src/cst tracefold_cst_format
  echo "$build/src/recorder/gen/tf_schema.c" # the generated schema genapp's calls are named by
  tf_lib_sources src/genapp tracefold_genapp | sed "s|^src/genapp/\${GGEN}/|$build/src/genapp/gen/|"
  tf_lib_sources src/cli tracefold_cli_verbs
}
