/* tracefold_cst.h — the CST marker API (doc/CST.md "Markers").
 *
 * tracefold-cc rewrites a copy of each C source so that the loops and
 * branches of its communication structure tree report to the recorder:
 *   tf_cst_loop_enter(id)   before a loop starts
 *   tf_cst_loop_iter(id)    at the start of each iteration (its body)
 *   tf_cst_loop_exit(id)    after it ends normally (not after return, goto or longjmp out of it)
 *   tf_cst_arm(id, arm)     a branch (if, switch) takes an arm: `arm` is the arm's id (an if's then or
 *                           else, a switch's case label reached; a fall-through reports each label)
 *   tf_cst_branch_end(id)   after the branch statement (not after return, goto or longjmp out of it, nor after
 *                           break or continue to a loop around it: that loop's own marker closes the arm)
 *   tf_cst_program()        before main (a constructor in each rewritten source): the program has markers
 * where id is the node's id in the program's CST file (tracefold cst).
 * libtracefold.so defines them. Programs declare them weak, so that a
 * program built by tracefold-cc also runs without the recorder preloaded:
 * the tf__cst_* wrappers then do nothing (one load and one test each). */
#ifndef TRACEFOLD_CST_H
#define TRACEFOLD_CST_H

#ifdef __cplusplus
extern "C" {
#endif

#ifdef TRACEFOLD_CST_DEFINE /* the recorder, which defines them */
#define TF_CST_WEAK
#else
#define TF_CST_WEAK __attribute__((weak))
#endif

void tf_cst_loop_enter(unsigned id) TF_CST_WEAK;
void tf_cst_loop_iter(unsigned id) TF_CST_WEAK;
void tf_cst_loop_exit(unsigned id) TF_CST_WEAK;
void tf_cst_arm(unsigned id, unsigned arm) TF_CST_WEAK;
void tf_cst_branch_end(unsigned id) TF_CST_WEAK;
void tf_cst_program(void) TF_CST_WEAK;

#ifndef TRACEFOLD_CST_DEFINE
/* what tracefold-cc's rewritten sources call */
static inline void tf__cst_enter(unsigned id) {
  if (tf_cst_loop_enter) tf_cst_loop_enter(id);
}
static inline void tf__cst_iter(unsigned id) {
  if (tf_cst_loop_iter) tf_cst_loop_iter(id);
}
static inline void tf__cst_exit(unsigned id) {
  if (tf_cst_loop_exit) tf_cst_loop_exit(id);
}
static inline unsigned tf__cst_arm(unsigned id, unsigned arm) {
  if (tf_cst_arm) tf_cst_arm(id, arm);
  return arm;
}
static inline void tf__cst_end(unsigned id) {
  if (tf_cst_branch_end) tf_cst_branch_end(id);
}
__attribute__((constructor)) static void tf__cst_program(void) {
  if (tf_cst_program) tf_cst_program();
}
#endif

#ifdef __cplusplus
}
#endif
#endif
