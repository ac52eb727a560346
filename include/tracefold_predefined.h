/* tracefold_predefined.h — the predefined MPI datatypes and reduction ops,
 * in id order. Datatype id k (1-based) is the k-th X() entry below; derived
 * datatypes get ids from 1000 up, per rank, in creation order. Op ids work
 * the same way (user ops from 1000). Used by the recorder (as handles) and
 * by readers (as names); the list itself is part of the trace format.
 */
#ifndef TRACEFOLD_PREDEFINED_H
#define TRACEFOLD_PREDEFINED_H

#define TF_PREDEFINED_DTYPES(X)                                                                                 \
  X(MPI_CHAR) X(MPI_SHORT) X(MPI_INT) X(MPI_LONG) X(MPI_LONG_LONG) X(MPI_SIGNED_CHAR) X(MPI_UNSIGNED_CHAR)       \
  X(MPI_UNSIGNED_SHORT) X(MPI_UNSIGNED) X(MPI_UNSIGNED_LONG) X(MPI_UNSIGNED_LONG_LONG) X(MPI_FLOAT)             \
  X(MPI_DOUBLE) X(MPI_LONG_DOUBLE) X(MPI_WCHAR) X(MPI_C_BOOL) X(MPI_INT8_T) X(MPI_INT16_T) X(MPI_INT32_T)       \
  X(MPI_INT64_T) X(MPI_UINT8_T) X(MPI_UINT16_T) X(MPI_UINT32_T) X(MPI_UINT64_T) X(MPI_C_FLOAT_COMPLEX)          \
  X(MPI_C_DOUBLE_COMPLEX) X(MPI_C_LONG_DOUBLE_COMPLEX) X(MPI_BYTE) X(MPI_PACKED) X(MPI_AINT) X(MPI_OFFSET)      \
  X(MPI_COUNT) X(MPI_INTEGER) X(MPI_REAL) X(MPI_DOUBLE_PRECISION) X(MPI_COMPLEX) X(MPI_LOGICAL)                 \
  X(MPI_CHARACTER) X(MPI_DOUBLE_COMPLEX) X(MPI_FLOAT_INT) X(MPI_DOUBLE_INT) X(MPI_LONG_INT) X(MPI_2INT)         \
  X(MPI_SHORT_INT) X(MPI_LONG_DOUBLE_INT) X(MPI_2REAL) X(MPI_2DOUBLE_PRECISION) X(MPI_2INTEGER)                 \
  X(MPI_INTEGER1) X(MPI_INTEGER2) X(MPI_INTEGER4) X(MPI_INTEGER8) X(MPI_REAL4) X(MPI_REAL8)

#define TF_PREDEFINED_OPS(X)                                                                                    \
  X(MPI_MAX) X(MPI_MIN) X(MPI_SUM) X(MPI_PROD) X(MPI_LAND) X(MPI_BAND) X(MPI_LOR) X(MPI_BOR) X(MPI_LXOR)        \
  X(MPI_BXOR) X(MPI_MAXLOC) X(MPI_MINLOC) X(MPI_REPLACE) X(MPI_NO_OP)

#define TF_DTYPE_DERIVED_BASE 1000
#define TF_OP_USER_BASE 1000

#endif
