# Compiler warning policy shared by every tracefold target.
#
# All our C code builds with -Wall -Wextra -Werror. One known false positive is
# handled deliberately here and nowhere else:
#
#   MPICH 4.0.2's mpi.h declares MPI_Waitall/Testall/Waitsome/... with
#   `MPI_Status array_of_statuses[]` carrying an access attribute, and GCC 12
#   then reports -Wstringop-overflow when MPI_STATUSES_IGNORE (a null pointer
#   cast) is passed. The warning is wrong (the MPI standard allows it).
#   tf_mpi_target() disables exactly that one warning, only for GCC >= 12, only
#   on targets that include mpi.h. Everything else stays an error.
function(tf_strict_target target)
  target_compile_options(${target} PRIVATE ${TF_WARN})
endfunction()

function(tf_mpi_target target)
  tf_strict_target(${target})
  target_link_libraries(${target} PRIVATE MPI::MPI_C)
  if(CMAKE_C_COMPILER_ID STREQUAL "GNU" AND CMAKE_C_COMPILER_VERSION VERSION_GREATER_EQUAL 12)
    target_compile_options(${target} PRIVATE -Wno-stringop-overflow)
  endif()
endfunction()
