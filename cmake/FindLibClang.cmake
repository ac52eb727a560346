# FindLibClang.cmake — libclang's C API (clang-c/Index.h, libclang.so) for
# the static analyser (src/cst/). Looks where llvm-config says, then in the
# Debian/Ubuntu /usr/lib/llvm-N directories (newest first). Sets
# LibClang_FOUND and the imported target LibClang::LibClang.
find_program(LIBCLANG_LLVM_CONFIG NAMES llvm-config llvm-config-18 llvm-config-17 llvm-config-16 llvm-config-15
             llvm-config-14)
set(libclang_hints "")
if(LIBCLANG_LLVM_CONFIG)
  execute_process(COMMAND ${LIBCLANG_LLVM_CONFIG} --prefix OUTPUT_VARIABLE libclang_prefix
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  list(APPEND libclang_hints ${libclang_prefix})
endif()
foreach(v 18 17 16 15 14 13)
  list(APPEND libclang_hints /usr/lib/llvm-${v})
endforeach()
find_path(LIBCLANG_INCLUDE_DIR clang-c/Index.h HINTS ${libclang_hints} PATH_SUFFIXES include)
find_library(LIBCLANG_LIBRARY NAMES clang libclang HINTS ${libclang_hints} PATH_SUFFIXES lib)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(LibClang DEFAULT_MSG LIBCLANG_LIBRARY LIBCLANG_INCLUDE_DIR)
if(LibClang_FOUND AND NOT TARGET LibClang::LibClang)
  add_library(LibClang::LibClang UNKNOWN IMPORTED)
  set_target_properties(LibClang::LibClang PROPERTIES IMPORTED_LOCATION ${LIBCLANG_LIBRARY}
                        INTERFACE_INCLUDE_DIRECTORIES ${LIBCLANG_INCLUDE_DIR})
endif()
