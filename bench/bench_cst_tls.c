/* bench_cst_tls.c — the thread-local counter of bench_cstmarker's TLS
 * variant, in a shared library as it would be in libtracefold.so. */
__attribute__((visibility("default"))) __thread unsigned long long bench_cst_tls_counter;
