/* sync.h — the lock and condition the replay threads of a rank share
 * (sync.c): objects registered, positions reached. */
#ifndef TF_REPLAY_SYNC_H
#define TF_REPLAY_SYNC_H

typedef struct rp_sync rp_sync; /* a lock and a condition */
rp_sync *rp_sync_new(void);     /* NULL: out of memory */
void rp_sync_free(rp_sync *s);
void rp_sync_lock(rp_sync *s);
void rp_sync_unlock(rp_sync *s);
void rp_sync_broadcast(rp_sync *s);
int rp_sync_wait(rp_sync *s, double timeout); /* lock held; 0 woken, -1 timed out */

#endif
