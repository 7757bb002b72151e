/*
 * worker.h - how the agent stops a worker thread: one that waits on a
 * condition variable under a lock and leaves once its stop flag is set
 * (the aggregation thread, aggregate.c; the ifIndex writer, ifindex.c).
 * Never starts one: each module blocks the signals its thread must not take.
 */
#ifndef STATCTR_WORKER_H
#define STATCTR_WORKER_H

#include <pthread.h>
#include <stdbool.h>

/* Sets *@stop under @lock, wakes the worker waiting on @wake, and waits for @thread to end. */
static inline void worker_stop(pthread_mutex_t *lock, pthread_cond_t *wake, bool *stop,
                               pthread_t thread)
{
	pthread_mutex_lock(lock);
	*stop = true;
	pthread_cond_signal(wake);
	pthread_mutex_unlock(lock);
	pthread_join(thread, NULL);
}

#endif /* STATCTR_WORKER_H */
