/*
 * statctr.pml - libstatctr's read protocol as a Promela model for spin.
 *
 * What is modelled (docs/design.md, "The read protocol, model-checked",
 * names each step's code line):
 *   - two writer slots; each writer runs transactions (seq odd, two cells
 *     +1, seq even), adds outside transactions (a third cell) and looks at
 *     its copy request (statctr_slot_serve_copy()); a look that finds a new
 *     ticket takes the buffer lock (CAS), copies its cells to the buffer
 *     between an odd and an even buf_seq, stores its record (copy_check,
 *     copy_ticket) in its slot header, publishes done and unlocks;
 *   - every writer store goes through an x86-TSO store buffer (a FIFO that a
 *     flusher drains at any time; a locked instruction waits until it is
 *     empty); loads of the writer's own cells come from its registers;
 *   - one reader taking a snapshot: a group read of the quiet slots, a
 *     sequence read of each slot that fails, then the copy service (ticket,
 *     request word, naps, the buffer taken into private memory and checked,
 *     re-requests, withdrawal, dead-holder lock recovery), else busy; every
 *     read accumulates into a pending sum committed on success, but the
 *     group read of a full snapshot's first pass, which adds into the
 *     committed sum itself: when it fails after a slot was committed, the
 *     pass is spoiled and read again without in-place reads;
 *   - with CHURN, writer 1 may release its slot and claim it again, or die
 *     while it holds the buffer lock (a new owner claims the slot later);
 *   - with RESETTER, a party who may write the control file stores values
 *     of its choosing into the request words, done, the buffer lock, buf_seq,
 *     buf_slot, buf_ticket and the buffer.
 * Mutations that put back the code of the tree issue 35 was filed on:
 *   DUP_LOAD   a cell loaded twice, once for the row, once for the sum;
 *   SUB_UNDO   a read added into the committed sum, a failed one undone by
 *              subtracting its row;
 *   NO_CANCEL  requests never withdrawn, a served copy never re-requested;
 *   SLOT_LOCK  the buffer lock word is the slot number + 1 alone;
 *   NO_RECORD  the reader trusts the control file's buffer words alone.
 * And one that breaks the in-place group read (not the code of any tree):
 *   KEEP_SPOILED  a spoiled pass goes on, slot by slot, instead of being
 *              read again.
 * Properties (asserts): a snapshot with no busy slot holds whole
 * transactions (c0 == c1 in every row and in the sum) and its rows add up
 * to its sums; with LIVE (no churn, no resetter), a reader whose writers
 * kept looking at their requests through every nap gets its copy within
 * its budget.  Values are kept mod 8, sequences mod 16: writers run at most
 * R0 and R1 rounds, so neither wraps.
 */

/* Rounds (a transaction, an add, or a look) of writer 0 and writer 1. */
#ifndef R0
#define R0 2
#endif
#ifndef R1
#define R1 2
#endif
#define ROUNDS (k == 0 -> R0 : R1)
#ifdef LIVE
#define BARE false
#define BUSY(k) ((k) == 0) /* writer 0 runs transactions back to back */
#else
#define BARE true
#define BUSY(k) false
#endif
#define NS 2
#ifdef LIVE
#define V 1 /* LIVE checks no values */
#else
#define V 8
#endif
#ifndef NAPS
#define NAPS 3 /* the assisted-read budget (snapshot.c: SLOT_WAIT_NS) */
#endif
#define SEQ_TRIES 2 /* sequence reads before asking for a copy */
#define NONE 255

/* The check of a copy: injective on the cell values (copy_check_of()). */
#define CHECK(a, b, c) ((a) * 64 + (b) * 8 + (c))
#define WORD(k, a) ((k) + 1 + 4 * (a))
#ifdef SLOT_LOCK
#define LOCKWORD(k, a) ((k) + 1)
#else
#define LOCKWORD(k, a) WORD(k, a)
#endif

/* The segment: only slot k's writer stores to its part. */
byte seq[NS];
byte c0[NS];
byte c1[NS];
byte c2[NS];
byte acq[NS];
bool live[NS];
int copy_check[NS];
byte copy_ticket[NS];

/* The control file: readers, writers and (RESETTER) resetters store here. */
byte ticket;
byte req[NS];
byte done[NS];
byte buf_lock;
byte buf_seq;
byte buf_slot;
byte buf_ticket;
byte buf0;
byte buf1;
byte buf2;

/* Model only: writers between taking the buffer lock and releasing it. */
byte copiers;

/* Model only (LIVE): writer 0 is busy (BUSY()): it looks at its request
 * at the end of each of its transactions, and a nap of a reader waiting
 * for slot 0 lasts until it looked and found the buffer free, or no new
 * request (the copy budget bounds the gap between looks well inside a nap:
 * docs/design.md, "Writer robustness and the copy budget").  Writer 1
 * looks when it likes, or idles. */
bool want[NS];
bool running[NS];

/* x86-TSO: each writer's stores, in order, until its flusher applies them. */
mtype = {SEQ, C0, C1, C2, BSEQ, B0, B1, B2, BSLOT, BTICKET, CHECKW, CTICKET, DONE};
chan sb[NS] = [3] of {mtype, int};

/* A store of writer k reaching memory. */
inline apply(w, addr, val)
{
		if
		:: addr == SEQ -> seq[w] = val
		:: addr == C0 -> c0[w] = val
		:: addr == C1 -> c1[w] = val
		:: addr == C2 -> c2[w] = val
		:: addr == BSEQ -> buf_seq = val
		:: addr == B0 -> buf0 = val
		:: addr == B1 -> buf1 = val
		:: addr == B2 -> buf2 = val
		:: addr == BSLOT -> buf_slot = val
		:: addr == BTICKET -> buf_ticket = val
		:: addr == CHECKW -> copy_check[w] = val
		:: addr == CTICKET -> copy_ticket[w] = val
		:: addr == DONE -> done[w] = val
		fi
}

#ifdef NO_TSO
#define ST(k, a, v) apply(k, a, v)
#else
#define ST(k, a, v) sb[k] ! a, v
#endif

proctype Flusher(byte k)
{
	mtype a;
	int v;

end:	do
	:: sb[k] ? a, v -> apply(k, a, v)
	od
}

/* copy_to_buffer() (slot.c), at a transaction boundary; a busy buffer
 * is left for a later look. */
inline copy(k, t)
{
	if
	:: atomic { empty(sb[k]) && buf_lock == 0 -> /* a CAS drains the store buffer */
		buf_lock = LOCKWORD(k, acq[k]); word = buf_lock; copiers++ } ->
#ifndef RESETTER
		assert(copiers == 1); /* nobody took the lock from under us */
#endif
		bseq = (buf_seq | 1) % 16;
		ST(k, BSEQ, bseq);
#ifdef CHURN
		if
		:: k == 1 && died == 0 -> died = 1; goto dead /* dies holding the lock */
		:: true
		fi;
#endif
		ST(k, B0, l0);
		ST(k, B1, l1);
		ST(k, B2, l2);
		ST(k, BSLOT, k);
		ST(k, BTICKET, t);
		ST(k, BSEQ, (bseq + 1) % 16);
		ST(k, CHECKW, CHECK(l0, l1, l2));
		ST(k, CTICKET, t);
		ST(k, DONE, t);
		/* Unlock: a CAS from our own word. */
		atomic { empty(sb[k]) -> if :: buf_lock == word -> buf_lock = 0 :: else fi; copiers-- };
		served = t
	:: buf_lock != 0 -> lock_busy = true
	fi
}

proctype Writer(byte k)
{
	byte l0, l1, l2, lseq, served, t, bseq, word, n, died;
	bool lock_busy, saw_nap;

	served = req[k];
	do
	:: n < ROUNDS -> /* a transaction (statctr_txn_begin() .. _end()) */
		lseq = (lseq + 1) % 16;
		ST(k, SEQ, lseq);
		l0 = (l0 + 1 + k) % V; /* writer 1 counts by 2: slots differ */
		ST(k, C0, l0);
		l1 = (l1 + 1 + k) % V;
		ST(k, C1, l1);
		lseq = (lseq + 1) % 16;
		ST(k, SEQ, lseq);
		if
		:: true -> /* at its end, a look at the request word */
			atomic { t = req[k]; saw_nap = want[k] }; /* want: model only */
			lock_busy = false;
			if
#ifdef NO_CANCEL
			:: t != served -> copy(k, t)
#else
			:: t != 0 && t != served -> copy(k, t)
#endif
			:: else
			fi;
			/* A look counts for a nap when it loaded the request
			 * after the nap began; one that found the buffer busy is
			 * retried at the next look, many of which fall in a nap. */
			want[k] = want[k] && (lock_busy || !saw_nap)
		:: !BUSY(k) /* not yet: copy_resume not reached */
		fi;
		n++
	:: n < ROUNDS && k == 0 && BARE -> /* an add outside transactions */
		l2 = (l2 + 1) % V;
		ST(k, C2, l2);
		n++
#ifdef CHURN
	:: n < ROUNDS && k == 1 && live[k] -> /* releases its slot, claims it again */
		live[k] = false;
		acq[k] = (acq[k] + 1) % 4;
		served = req[k];
		live[k] = true;
		n++
#endif
	:: n == ROUNDS -> break
	od;
	running[k] = false;
	goto out;
#ifdef CHURN
dead:	/* The owner died holding the lock; a new owner claims the slot. */
	live[k] = false;
	running[k] = false;
	empty(sb[k]);
	acq[k] = (acq[k] + 1) % 4;
	live[k] = true;
#endif
out:	skip
}

#ifdef RESETTER
#ifdef LOCK_ONLY
#define ACTS 1 /* one store into the lock word */
#else
#define ACTS 2
#endif
/* Up to ACTS acts of a party who may write the control file: a single store
 * of its choosing, or a whole forged copy for slot 0's request (its cells,
 * buf_slot, buf_ticket, an even buf_seq and done, as a writer stores them,
 * with values of its own). */
proctype Resetter()
{
	byte n;

	do
	:: n < ACTS ->
		if
#ifndef LOCK_ONLY
		:: atomic {
			buf0 = 7; buf1 = 3; buf2 = 0; buf_slot = 0; buf_ticket = req[0];
			buf_seq = (buf_seq | 1) + 1; done[0] = req[0] }
		:: req[0] = 0
		:: req[1] = ticket
		:: buf_seq = buf_seq | 1
		:: buf_lock = WORD(0, 0)
#endif
		:: buf_lock = 0
		fi;
		n++
	:: n == ACTS -> break
	od
}
#endif

/* The reader's snapshot. */
byte sum0, sum1, sum2; /* committed */
byte p0, p1, p2;       /* pending */
byte r0[NS];
byte r1[NS];
byte r2[NS];
bool sum_empty = true;
bool in_place; /* this read adds into the committed sum itself */
bool spoiled;  /* an in-place read failed after a commit: read the pass again */
byte busy;
bool read_whole[NS];

/* Slot k's cells into its row and the pending sum (or, in place or SUB_UNDO,
 * the sum).
 * LIVE checks no values: it loads none, to keep its state space small. */
inline load_cells(k)
{
#ifndef LIVE
#ifdef DUP_LOAD
	r0[k] = c0[k]; x = c0[k];
	r1[k] = c1[k]; y = c1[k];
	r2[k] = c2[k]; z = c2[k];
#else
	x = c0[k]; r0[k] = x;
	y = c1[k]; r1[k] = y;
	z = c2[k]; r2[k] = z;
#endif
#ifdef SUB_UNDO
	sum0 = (sum0 + x) % V; sum1 = (sum1 + y) % V; sum2 = (sum2 + z) % V
#else
	if
	:: in_place -> sum0 = (sum0 + x) % V; sum1 = (sum1 + y) % V; sum2 = (sum2 + z) % V
	:: else -> p0 = (p0 + x) % V; p1 = (p1 + y) % V; p2 = (p2 + z) % V
	fi
#endif
#else
	skip
#endif
}

inline begin_read()
{
#ifndef SUB_UNDO
	if
	:: in_place && sum_empty -> sum0 = 0; sum1 = 0; sum2 = 0
	:: in_place && !sum_empty -> skip
	:: !in_place && sum_empty -> p0 = 0; p1 = 0; p2 = 0
	:: !in_place && !sum_empty -> p0 = sum0; p1 = sum1; p2 = sum2
	fi
#else
	if
	:: sum_empty -> sum0 = 0; sum1 = 0; sum2 = 0
	:: else
	fi
#endif
}

/* settle(): commit (in place: already there), or (SUB_UNDO) undo a failed
 * read by subtraction; a failed in-place read after a commit spoils. */
inline settle(k, whole)
{
#ifdef SUB_UNDO
	if
	:: !whole && !sum_empty ->
		sum0 = (sum0 + V - r0[k]) % V; sum1 = (sum1 + V - r1[k]) % V;
		sum2 = (sum2 + V - r2[k]) % V
	:: else
	fi;
#else
	if
	:: whole && !in_place -> sum0 = p0; sum1 = p1; sum2 = p2
	:: !whole && in_place && !sum_empty -> spoiled = true
	:: else
	fi;
#endif
	sum_empty = sum_empty && !whole
}

/* seq_read_all(): the slots in mask (1: slot 0, 2: slot 1) in one read. */
inline seq_read(mask, ok)
{
	b0 = seq[0]; b1 = seq[1];
	if
	:: ((mask & 1) && (b0 & 1)) || ((mask & 2) && (b1 & 1)) -> ok = false
	:: else ->
		begin_read();
		if :: mask & 1 -> load_cells(0) :: else fi;
		if :: mask & 2 -> load_cells(1) :: else fi;
		ok = (!(mask & 1) || seq[0] == b0) && (!(mask & 2) || seq[1] == b1);
		/* SUB_UNDO undoes each slot of a failed read */
		if :: mask & 1 -> settle(0, ok) :: else fi;
		if :: mask == 2 -> settle(1, ok) :: mask == 3 && !ok -> settle(1, ok) :: else fi
	fi
}

/* take_buffer(): the copy for ticket t, into private memory, checked. */
inline take_buffer(k, t, ok)
{
	ok = false;
#ifndef NO_RECORD
	if
	:: copy_ticket[k] != t -> goto taken
	:: else -> chk = copy_check[k]
	fi;
#endif
	bs = buf_seq;
	if
	:: (bs & 1) || buf_slot != k || buf_ticket != t -> goto taken
	:: else
	fi;
	x = buf0; y = buf1; z = buf2;
	if
	:: buf_seq != bs -> goto taken
	:: else
	fi;
#ifndef NO_RECORD
	if
	:: CHECK(x, y, z) != chk -> goto taken
	:: else
	fi;
#endif
	begin_read();
	r0[k] = x; r1[k] = y; r2[k] = z;
#ifdef SUB_UNDO
	sum0 = (sum0 + x) % V; sum1 = (sum1 + y) % V; sum2 = (sum2 + z) % V;
#else
	p0 = (p0 + x) % V; p1 = (p1 + y) % V; p2 = (p2 + z) % V;
#endif
	ok = true;
	settle(k, ok);
taken:	skip
}

/* clear_dead_buffer_lock() */
inline clear_dead_lock()
{
	h = buf_lock;
	if
	:: h != 0 ->
		hk = (h - 1) % 4;
		if
		:: hk >= NS -> gone = true
		:: else -> gone = !live[hk];
			if
			:: !gone -> gone = (LOCKWORD(hk, acq[hk]) != h)
			:: else
			fi
		fi;
		if
		:: gone -> atomic { if :: buf_lock == h -> buf_lock = 0 :: else fi }
		:: else
		fi
	:: else
	fi
}

/* assisted_read() */
inline assisted_read(k, ok)
{
	ticket = ticket + 1;
	t = ticket;
	req[k] = t;
	nap = 0;
	last = seq[k];
	ok = false;
	do
	:: nap < NAPS && !ok ->
		/* a nap: each running writer looks at its request meanwhile */
		if
		:: BUSY(k) -> want[k] = true; !want[k] || !running[k]
		:: else
		fi;
		s = seq[k];
		served = (done[k] == t);
		if
		:: served -> take_buffer(k, t, ok)
		:: else
		fi;
		if
		:: !ok && s == last && !(s & 1) -> seq_read(k + 1, ok)
		:: else
		fi;
#ifndef NO_CANCEL
		if
		:: served && !ok -> ticket = ticket + 1; t = ticket; req[k] = t
		:: else
		fi;
#endif
		last = s;
		nap++
	:: else -> break
	od;
#ifndef NO_CANCEL
	atomic { if :: req[k] == t -> req[k] = 0 :: else fi };
#endif
#ifdef LIVE
	/* Writers that kept looking serve a request within the budget. */
	assert(ok || !BUSY(k) || !running[k]);
#endif
	if
	:: !ok -> clear_dead_lock()
	:: else
	fi
}

/* read_slot(): sequence reads, the copy service, else busy. */
inline read_slot(k)
{
	tries = 0;
	whole = false;
	do
	:: tries < SEQ_TRIES && !whole -> seq_read(k + 1, whole); tries++
	:: else -> break
	od;
	if
	:: !whole -> assisted_read(k, whole)
	:: else
	fi;
	if
	:: !whole -> /* busy: kept as last read, counted */
		begin_read(); load_cells(k); settle(k, true); busy++
	:: else
	fi
}

inline check_snapshot()
{
	if
	:: busy == 0 ->
		assert(sum0 == sum1);
		assert(r0[0] == r1[0] && r0[1] == r1[1]);
		assert((r0[0] + r0[1]) % V == sum0 && (r1[0] + r1[1]) % V == sum1 &&
		       (r2[0] + r2[1]) % V == sum2)
	:: else
	fi
}

proctype Reader()
{
	byte b0, b1, x, y, z, t, nap, last, s, tries, bs, h, hk;
	int chk;
	bool ok, whole, served, gone;

	/* Slot 1 moved since the last snapshot: read alone first; slot 0
	 * looked quiet: a group read (here of one), in place, then slot by
	 * slot; a spoiled pass is read again, without in-place reads. */
	read_slot(1);
	in_place = true;
	seq_read(1, ok);
	in_place = false;
#ifndef KEEP_SPOILED
	if
	:: spoiled ->
		spoiled = false; sum_empty = true; busy = 0;
		read_slot(1);
		seq_read(1, ok)
	:: else
	fi;
#endif
	if
	:: !ok -> read_slot(0)
	:: else
	fi;
	check_snapshot()
#ifdef TWICE
	;
	sum_empty = true; busy = 0;
	read_slot(0);
	read_slot(1);
	check_snapshot()
#endif
}

init
{
	atomic {
		live[0] = true;
		live[1] = true;
		running[0] = true;
		running[1] = true;
		run Flusher(0);
		run Flusher(1);
		run Writer(0);
		run Writer(1);
#ifdef RESETTER
		run Resetter();
#endif
		run Reader()
	}
}
