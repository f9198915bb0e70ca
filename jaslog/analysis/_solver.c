/* The solver's search, compiled: the search of jaslog/analysis/search.py, in C.
 *
 * A Solver holds a round's rules as tables (jaslog/analysis/model.py, SolveRules: what the
 * game's solver adapter declares) and the sides of its seats, and two transposition tables
 * that live as long as it does, so the positions of one deal are solved with what the
 * earlier ones found. It knows no game by name. The Python core gives the same answers;
 * tests/analysis compares the two.
 *
 * The value of a position (its par) is side 0's score minus side 1's at the end of the
 * round. With the majority scoring (Klaverjas, Klaberjass) it is found in two steps:
 *   1. the minimax of the difference still to come (card points, roem, bonuses), which adds
 *      up trick by trick, so its table is keyed on the cards left, the trick and who took a
 *      trick yet, not on the score so far; when side 0 makes it, that is the par;
 *   2. otherwise the minimax of the whole value, whose table also holds the score so far,
 *      knowing that every position side 0 can still make is worth at least the threshold.
 * Both use null-window searches (fail-soft alpha-beta) and tables of bounds.
 *
 * A search may be given a budget (Solver.limit): the most positions it may search, the most
 * seconds it may take; beyond either it stops, par and after raise OutOfBudget, and the
 * tables keep only what was found whole (a position cut short is never stored). The search
 * runs without the GIL: it touches nothing but the Solver's own fields and tables (their
 * memory from PyMem_Raw*, which needs no GIL), and one Solver searches in one thread at a
 * time (another thread's call meanwhile is a RuntimeError). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#define INF (1 << 28)
#define MAXMOVES 16
/* no limit on the positions searched */
#define NO_LIMIT (1LL << 62)
/* how many positions a search with a time budget searches between two looks at the clock */
#define CHECK_EVERY 65536

static PyObject *OutOfBudget;

/* seconds on a clock that only goes forward */
static double clock_seconds(void) {
    struct timespec ts;
#ifdef CLOCK_MONOTONIC
    clock_gettime(CLOCK_MONOTONIC, &ts);
#else
    timespec_get(&ts, TIME_UTC);
#endif
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

enum { VOID_ANY, VOID_TRUMP, VOID_OVERTRUMP, VOID_AMSTERDAM };
enum { PARTNER_NO_UNDERTRUMP, PARTNER_DISCARD_ONLY, PARTNER_FREE };
enum { SCORE_MAJORITY, SCORE_TABLE };
enum { TIE_MADE, TIE_NAT, TIE_HALF };

static inline int pc32(uint32_t x) {
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    return (int)((((x + (x >> 4)) & 0x0F0F0F0Fu) * 0x01010101u) >> 24);
}

static inline int low_card(uint32_t m) { return __builtin_ctz(m); }

/* ------------------------------------------------------------------ transposition tables */

/* The bounds lo..hi a table keeps of a position, against the window alpha..beta: 1 and the
 * value in *v when they answer the search, else 0 and the window narrowed to them. */
static inline int table_answers(int lo, int hi, int *alpha, int *beta, int *v) {
    if (lo >= *beta) { *v = lo; return 1; }
    if (hi <= *alpha) { *v = hi; return 1; }
    if (lo == hi) { *v = lo; return 1; }
    if (lo > *alpha) *alpha = lo;
    if (hi < *beta) *beta = hi;
    return 0;
}

/* The bounds lo..hi of a position once searched in the window a0..b0 (fail-soft): its
 * value best is an upper bound at or below a0, a lower bound at or above b0, else exact. */
static inline void searched_bounds(int best, int a0, int b0, int *lo, int *hi) {
    if (best <= a0) { if (best < *hi) *hi = best; }
    else if (best >= b0) { if (best > *lo) *lo = best; }
    else *lo = *hi = best;
}

typedef struct {
    uint64_t k1, k2;
    int32_t lo, hi;
    int8_t move;
    uint8_t left;   /* cards left in the hands: what finding it again would cost */
    uint8_t used;
} Entry;

typedef struct {
    Entry *slots;
    size_t mask, count, most;
} Table;

#define PROBES 8

static inline size_t slot_of(uint64_t a, uint64_t b) {
    uint64_t h = a * 0x9E3779B97F4A7C15ULL ^ (b + 0x632BE59BD9B4E019ULL + (a >> 29));
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 29;
    return (size_t)h;
}

static int table_init(Table *t, size_t slots, size_t most) {
    t->slots = PyMem_RawCalloc(slots, sizeof(Entry));
    if (!t->slots) return -1;
    t->mask = slots - 1;
    t->count = 0;
    t->most = most;
    return 0;
}

static void table_free(Table *t) {
    PyMem_RawFree(t->slots);
    t->slots = NULL;
    t->count = 0;
}

static Entry *table_find(Table *t, uint64_t k1, uint64_t k2) {
    size_t i = slot_of(k1, k2);
    for (int p = 0; p < PROBES; p++) {
        Entry *e = &t->slots[(i + p) & t->mask];
        if (!e->used) return NULL;
        if (e->k1 == k1 && e->k2 == k2) return e;
    }
    return NULL;
}

static void table_put(Table *t, uint64_t k1, uint64_t k2, int lo, int hi, int move, int left);

static void table_grow(Table *t) {
    Table bigger;
    if (table_init(&bigger, (t->mask + 1) * 2, t->most) < 0) {
        /* no memory to grow: keep replacing entries in the table we have */
        t->most = t->mask + 1;
        return;
    }
    for (size_t i = 0; i <= t->mask; i++) {
        Entry *e = &t->slots[i];
        if (e->used) table_put(&bigger, e->k1, e->k2, e->lo, e->hi, e->move, e->left);
    }
    PyMem_RawFree(t->slots);
    *t = bigger;
}

static void table_put(Table *t, uint64_t k1, uint64_t k2, int lo, int hi, int move, int left) {
    if (t->count * 2 > t->mask && t->mask + 1 < t->most) table_grow(t);
    size_t i = slot_of(k1, k2);
    Entry *victim = NULL;
    for (int p = 0; p < PROBES; p++) {
        Entry *e = &t->slots[(i + p) & t->mask];
        if (!e->used) {
            victim = e;
            t->count++;
            break;
        }
        if (e->k1 == k1 && e->k2 == k2) {
            victim = e;
            break;
        }
        if (victim == NULL || e->left < victim->left) victim = e;
    }
    victim->k1 = k1;
    victim->k2 = k2;
    victim->lo = lo;
    victim->hi = hi;
    victim->move = (int8_t)move;
    victim->left = (uint8_t)left;
    victim->used = 1;
}

/* The table of the difference search: its key fits in 64 bits (the cards left, the seat to
 * lead, who took a trick), its bounds in 16 (the rules' values are checked to fit), so four
 * entries share a cache line and a probe reads one line. */
typedef struct {
    uint64_t key;
    int16_t lo, hi;
    int8_t move;
    uint8_t left;
    uint16_t used;
} Small;

typedef struct {
    Small *slots;   /* buckets of BUCKET entries */
    size_t buckets, count, most;
} SmallTable;

#define BUCKET 4
#define SMALL_INF 32767

static int small_init(SmallTable *t, size_t buckets, size_t most) {
    t->slots = PyMem_RawCalloc(buckets * BUCKET, sizeof(Small));
    if (!t->slots) return -1;
    t->buckets = buckets;
    t->count = 0;
    t->most = most;
    return 0;
}

static void small_free(SmallTable *t) {
    PyMem_RawFree(t->slots);
    t->slots = NULL;
    t->count = 0;
}

static inline Small *small_find(SmallTable *t, uint64_t key) {
    Small *b = &t->slots[(slot_of(key, 0) & (t->buckets - 1)) * BUCKET];
    for (int i = 0; i < BUCKET; i++)
        if (b[i].used && b[i].key == key) return &b[i];
    return NULL;
}

static inline int16_t to_small(int v) {
    return (int16_t)(v >= INF ? SMALL_INF : v <= -INF ? -SMALL_INF : v);
}

static inline int from_small(int16_t v) {
    return v >= SMALL_INF ? INF : v <= -SMALL_INF ? -INF : v;
}

static void small_put(SmallTable *t, uint64_t key, int lo, int hi, int move, int left);

static void small_grow(SmallTable *t) {
    SmallTable bigger;
    if (small_init(&bigger, t->buckets * 2, t->most) < 0) {
        /* no memory to grow: keep replacing entries in the table we have */
        t->most = t->buckets;
        return;
    }
    for (size_t i = 0; i < t->buckets * BUCKET; i++) {
        Small *e = &t->slots[i];
        if (e->used)
            small_put(&bigger, e->key, from_small(e->lo), from_small(e->hi), e->move, e->left);
    }
    PyMem_RawFree(t->slots);
    *t = bigger;
}

static void small_put(SmallTable *t, uint64_t key, int lo, int hi, int move, int left) {
    if (t->count * 2 > t->buckets * BUCKET && t->buckets < t->most) small_grow(t);
    Small *b = &t->slots[(slot_of(key, 0) & (t->buckets - 1)) * BUCKET], *victim = NULL;
    for (int i = 0; i < BUCKET; i++) {
        if (b[i].used && b[i].key == key) {
            victim = &b[i];
            break;
        }
        if (!b[i].used) {
            if (victim == NULL || victim->used) victim = &b[i];
        } else if (victim == NULL || (victim->used && b[i].left < victim->left)) {
            victim = &b[i];
        }
    }
    if (!victim->used) t->count++;
    victim->key = key;
    victim->lo = to_small(lo);
    victim->hi = to_small(hi);
    victim->move = (int8_t)move;
    victim->left = (uint8_t)left;
    victim->used = 1;
}

/* ------------------------------------------------------------------ the rules */

typedef struct {
    PyObject_HEAD
    int players, trump;
    int suit[32], strength[32], points[32];
    uint32_t suitmask[5], higher[32], trumps;
    int last_bonus, head_trump, head_plain, void_rule, undertrump, partner_trump, opp_undertrump;
    int run_roem[256];
    uint32_t stuk;
    int stuk_value, four_kind[8], three_kind, has_roem, runs;
    int scoring, tie, pit[2];
    int *table;
    Py_ssize_t table_len;
    int side[4], pending[2];
    /* the position searched */
    uint32_t hands[4];
    int trick[4], n, leader, win, won[2], pts[2], roem[2];
    long long nodes;
    /* the budget: the node count to stop at, the clock's time to stop at (0: none), the
     * node count at which to look at both next; stopped: the budget is spent */
    long long node_limit, next_check;
    double deadline;
    int stopped;
    int busy;   /* a thread is searching (without the GIL) */
    SmallTable dtt;
    Table gtt;
} Solver;

/* Whether the budget is spent (at the node count next_check); else when to look again. */
static int over_budget(Solver *S) {
    if (S->nodes >= S->node_limit) return 1;
    if (S->deadline > 0 && clock_seconds() >= S->deadline) return 1;
    S->next_check = S->node_limit;
    if (S->deadline > 0 && S->nodes + CHECK_EVERY < S->next_check)
        S->next_check = S->nodes + CHECK_EVERY;
    return 0;
}

/* Count a position searched: 1 when the search must stop (the budget is spent). */
static inline int spent(Solver *S) {
    S->nodes++;
    if (S->stopped) return 1;
    if (S->nodes >= S->next_check && over_budget(S)) S->stopped = 1;
    return S->stopped;
}

static inline int beats(Solver *S, int c, int best) {
    int sc = S->suit[c], sb = S->suit[best];
    if (sc == S->trump) return sb != S->trump || S->strength[c] > S->strength[best];
    return sc == sb && S->strength[c] > S->strength[best];
}

/* The legal cards of ``hand`` for the seat to play (rule book 3.3, 4.7, 5.4 as declared). */
static uint32_t legal(Solver *S, uint32_t hand) {
    int n = S->n;
    if (!n) return hand;
    int led = S->suit[S->trick[0]];
    uint32_t my_trumps = hand & S->trumps;
    int top = -1;
    for (int i = 0; i < n; i++) {
        int c = S->trick[i];
        if (S->suit[c] == S->trump && (top < 0 || S->strength[c] > S->strength[top])) top = c;
    }
    uint32_t higher = top >= 0 ? my_trumps & S->higher[top] : my_trumps;
    if (led == S->trump) {
        if (S->head_trump) return higher ? higher : my_trumps ? my_trumps : hand;
        return my_trumps ? my_trumps : hand;
    }
    uint32_t follow = hand & S->suitmask[led];
    if (follow) {
        if (S->head_plain) {
            int w = S->trick[S->win];
            if (S->suit[w] == led) {
                uint32_t up = follow & S->higher[w];
                if (up) return up;
            }
        }
        return follow;
    }
    if (!my_trumps || S->void_rule == VOID_ANY) return hand;
    if (S->void_rule == VOID_TRUMP) return my_trumps;
    if (S->void_rule == VOID_OVERTRUMP) return higher ? higher : S->undertrump ? my_trumps : hand;
    uint32_t plain = hand & ~my_trumps;
    if (S->win != n - 2) {  /* an opponent is winning */
        if (higher) return higher;
        if (S->opp_undertrump) return my_trumps;
        return plain ? plain : hand;
    }
    if (S->suit[S->trick[S->win]] != S->trump) return hand;
    if (S->partner_trump == PARTNER_NO_UNDERTRUMP) return (plain | higher) ? (plain | higher) : hand;
    if (S->partner_trump == PARTNER_DISCARD_ONLY) return plain ? plain : hand;
    return hand;
}

/* The roem of the four cards ``cards`` (their mask ``mask``). */
static int trick_roem(Solver *S, const int *cards, uint32_t mask) {
    int a = cards[0] & 7;
    uint32_t rank_mask = 0x01010101u << a;
    if (mask == rank_mask) return S->four_kind[a];
    int v = S->run_roem[mask & 0xFF] + S->run_roem[(mask >> 8) & 0xFF]
          + S->run_roem[(mask >> 16) & 0xFF] + S->run_roem[mask >> 24];
    if (S->stuk && (mask & S->stuk) == S->stuk) v += S->stuk_value;
    if (S->three_kind) {
        int b = cards[1] & 7;
        if (pc32(mask & rank_mask) == 3 || pc32(mask & (0x01010101u << b)) == 3) v += S->three_kind;
    }
    return v;
}

/* the terms of side 0's total minus side 1's that depend only on who took a trick */
static inline int flag_terms(Solver *S) {
    return (S->won[0] ? S->pending[0] : 0) + (S->won[1] ? 0 : S->pit[0])
         - (S->won[1] ? S->pending[1] : 0) - (S->won[0] ? 0 : S->pit[1]);
}

/* the value of a round played out */
static int final_value(Solver *S) {
    if (S->scoring == SCORE_MAJORITY) {
        int t0 = S->pts[0] + S->roem[0] + (S->won[0] ? S->pending[0] : 0) + (S->won[1] ? 0 : S->pit[0]);
        int t1 = S->pts[1] + S->roem[1] + (S->won[1] ? S->pending[1] : 0) + (S->won[0] ? 0 : S->pit[1]);
        if (t0 > t1) return t0 - t1;
        if (t0 == t1) {
            if (S->tie == TIE_MADE) return 0;
            if (S->tie == TIE_HALF) return -t1;
        }
        return -(t0 + t1);
    }
    /* points past the table's last row score as that row (the thresholds are "at least") */
    Py_ssize_t rows = S->table_len / 3, p = S->pts[0];
    if (!rows || p < 0) return 0;
    if (p >= rows) p = rows - 1;
    return S->table[3 * p + (!S->won[0] ? 0 : !S->won[1] ? 2 : 1)];
}

typedef struct {
    int win, leader, side, gain_pts, gain_roem, won, complete;
    int trick[4];
} Undo;

static void play(Solver *S, int mover, int c, Undo *u) {
    S->hands[mover] &= ~(1u << c);
    int n = S->n;
    u->win = S->win;
    u->complete = 0;
    if (!n) S->win = 0;
    else if (beats(S, c, S->trick[S->win])) S->win = n;
    S->trick[n] = c;
    S->n = n + 1;
    if (n + 1 < S->players) return;
    u->complete = 1;
    int w = (S->leader + S->win) % S->players, s = S->side[w], pts = 0;
    uint32_t mask = 0;
    for (int i = 0; i < S->players; i++) {
        pts += S->points[S->trick[i]];
        mask |= 1u << S->trick[i];
        u->trick[i] = S->trick[i];
    }
    if (!(S->hands[0] | S->hands[1] | S->hands[2] | S->hands[3])) pts += S->last_bonus;
    int roem = S->has_roem ? trick_roem(S, S->trick, mask) : 0;
    u->leader = S->leader;
    u->side = s;
    u->gain_pts = pts;
    u->gain_roem = roem;
    u->won = S->won[s];
    S->pts[s] += pts;
    S->roem[s] += roem;
    S->won[s] = 1;
    S->leader = w;
    S->n = 0;
    S->win = 0;
}

static void unplay(Solver *S, int mover, int c, Undo *u) {
    S->hands[mover] |= 1u << c;
    if (!u->complete) {
        S->n--;
        S->win = u->win;
        return;
    }
    int s = u->side;
    S->pts[s] -= u->gain_pts;
    S->roem[s] -= u->gain_roem;
    S->won[s] = u->won;
    S->leader = u->leader;
    for (int i = 0; i < S->players; i++) S->trick[i] = u->trick[i];
    S->n = S->players - 1;
    S->win = u->win;
}

/* The last trick, whose cards are forced: its points with the last-trick bonus, its roem,
 * and the side that takes it. The position is left as it was. */
static void last_trick(Solver *S, int *side, int *pts, int *roem) {
    int cards[4], win = S->win;
    for (int i = 0; i < S->n; i++) cards[i] = S->trick[i];
    for (int i = S->n; i < S->players; i++) {
        int c = low_card(S->hands[(S->leader + i) % S->players]);
        cards[i] = c;
        if (i && beats(S, c, cards[win])) win = i;
    }
    uint32_t mask = 0;
    int p = S->last_bonus;
    for (int i = 0; i < S->players; i++) {
        p += S->points[cards[i]];
        mask |= 1u << cards[i];
    }
    *side = S->side[(S->leader + win) % S->players];
    *pts = p;
    *roem = S->has_roem ? trick_roem(S, cards, mask) : 0;
}

/* Can a trick to come hold a run through card c: two more cards of a run of three out
 * (in other hands or the trick), not both in one hand? */
static int run_through(Solver *S, int c, uint32_t out) {
    int rank = c & 7, base = c & ~7;
    for (int w = rank - 2; w <= rank; w++) {
        if (w < 0 || w + 2 > 7) continue;
        int other[2], k = 0;
        for (int r = w; r <= w + 2; r++)
            if (r != rank) other[k++] = base + r;
        if (!(out >> other[0] & 1) || !(out >> other[1] & 1)) continue;
        uint32_t pair = 1u << other[0] | 1u << other[1];
        int one_hand = 0;
        for (int s = 0; s < S->players; s++)
            if ((S->hands[s] & pair) == pair) one_hand = 1;
        if (!one_hand) return 1;
    }
    return 0;
}

/* Can no trick to come tell card c from another by its roem? */
static int roem_blind(Solver *S, int c, uint32_t out) {
    if (!S->has_roem) return 1;
    int rank = c & 7, suit = c >> 3, same = 0;
    if (S->runs && run_through(S, c, out)) return 0;
    if (S->stuk_value && (S->stuk >> c & 1)) return 0;
    for (int t = 0; t < 4; t++)
        if (t != suit && (out >> (t * 8 + rank) & 1)) same++;
    if (S->four_kind[rank] && same == 3) return 0;
    if (S->three_kind && same >= 2) return 0;
    return 1;
}

/* The cards to try, best first: the legal cards, one of each class of equivalent cards
 * (one suit, adjacent in rank with no card out between them, the same points, and roem
 * blind to them), the table's move first. */
static int gen_moves(Solver *S, int mover, uint32_t rem, uint32_t tmask, int tt_move, int *out) {
    uint32_t hand = S->hands[mover], lm = legal(S, hand);
    uint32_t outside = (rem & ~hand) | tmask;
    int cards[MAXMOVES], nc = 0;
    while (lm && nc < MAXMOVES) {
        int c = low_card(lm), i = nc++;
        lm &= lm - 1;
        while (i > 0 && (S->suit[cards[i - 1]] > S->suit[c]
                         || (S->suit[cards[i - 1]] == S->suit[c]
                             && S->strength[cards[i - 1]] > S->strength[c]))) {
            cards[i] = cards[i - 1];
            i--;
        }
        cards[i] = c;
    }
    int reps[MAXMOVES], nr = 0, prev = -1;
    for (int i = 0; i < nc; i++) {
        int c = cards[i];
        if (prev >= 0 && S->suit[c] == S->suit[prev] && S->points[c] == S->points[prev]
            && !(outside & S->higher[prev] & ~S->higher[c] & ~(1u << c))
            && roem_blind(S, c, outside) && roem_blind(S, prev, outside)) {
            prev = c;
            continue;
        }
        reps[nr++] = c;
        prev = c;
    }
    int score[MAXMOVES], w = -1, partner = 0;
    if (S->n) {
        w = S->trick[S->win];
        partner = S->side[(S->leader + S->win) % S->players] == S->side[mover];
    }
    for (int i = 0; i < nr; i++) {
        int c = reps[i], v;
        if (c == tt_move) v = 1 << 20;
        else if (!S->n) v = ((outside & S->higher[c]) ? 0 : 1000) + S->points[c];
        else {
            int wins = beats(S, c, w);
            if (wins && !partner) v = 5000 + S->points[c] * 10 - S->strength[c];
            else if (partner && !wins) v = 3000 + S->points[c];
            else if (partner) v = 2000 + S->points[c];
            else v = 1000 - S->points[c] * 10 - S->strength[c];
        }
        int j = i;
        while (j > 0 && score[j - 1] < v) {
            score[j] = score[j - 1];
            out[j] = out[j - 1];
            j--;
        }
        score[j] = v;
        out[j] = c;
    }
    return nr;
}

static inline uint32_t remaining(Solver *S) {
    return S->hands[0] | S->hands[1] | S->hands[2] | S->hands[3];
}

static inline int to_move(Solver *S) { return (S->leader + S->n) % S->players; }

/* ------------------------------------------------------------------ the searches */

/* The minimax of side 0's total minus side 1's still to come (fail-soft, within the window
 * alpha-beta): what the tricks to come add, and the bonuses of taking a trick. */
static int dab(Solver *S, int alpha, int beta) {
    if (spent(S)) return 0;
    uint32_t rem = remaining(S);
    if (!S->n && !rem) return flag_terms(S);
    if (pc32(rem) == S->players - S->n) {
        int s, pts, roem;
        last_trick(S, &s, &pts, &roem);
        int w = S->won[s];
        S->won[s] = 1;
        int v = (s ? -(pts + roem) : pts + roem) + flag_terms(S);
        S->won[s] = w;
        return v;
    }
    uint32_t tmask = 0;
    for (int i = 0; i < S->n; i++) tmask |= 1u << S->trick[i];
    uint64_t key = rem | (uint64_t)S->leader << 32 | (uint64_t)S->won[0] << 34
                 | (uint64_t)S->won[1] << 35;
    int lo = -INF, hi = INF, tt_move = -1;
    if (!S->n) {
        Small *e = small_find(&S->dtt, key);
        if (e) {
            lo = from_small(e->lo);
            hi = from_small(e->hi);
            tt_move = e->move;
            int v;
            if (table_answers(lo, hi, &alpha, &beta, &v)) return v;
        }
    }
    int mover = to_move(S), moves[MAXMOVES];
    int nm = gen_moves(S, mover, rem, tmask, tt_move, moves);
    int maxing = S->side[mover] == 0, a0 = alpha, b0 = beta;
    int best = maxing ? -INF : INF, bm = -1;
    for (int i = 0; i < nm; i++) {
        int c = moves[i], v;
        Undo u;
        play(S, mover, c, &u);
        if (u.complete) {
            int g = u.side ? -(u.gain_pts + u.gain_roem) : u.gain_pts + u.gain_roem;
            v = g + dab(S, alpha - g, beta - g);
        } else {
            v = dab(S, alpha, beta);
        }
        unplay(S, mover, c, &u);
        if (S->stopped) return 0;  /* cut short: nothing of it is stored */
        if (maxing ? v > best : v < best) {
            best = v;
            bm = c;
            if (maxing ? v > alpha : v < beta) {
                if (maxing) alpha = v; else beta = v;
                if (alpha >= beta) break;
            }
        }
    }
    if (!S->n) {
        searched_bounds(best, a0, b0, &lo, &hi);
        small_put(&S->dtt, key, lo, hi, bm, pc32(rem));
    }
    return best;
}

static inline int made_threshold(Solver *S) { return S->tie == TIE_MADE ? 0 : 1; }

static inline int acc_diff(Solver *S) { return S->pts[0] + S->roem[0] - S->pts[1] - S->roem[1]; }

/* The most a position side 0 cannot make is worth (majority scoring): no more roem, and the
 * bonuses that cost the least. */
static int not_made_bound(Solver *S) {
    int total = S->pts[0] + S->pts[1] + S->roem[0] + S->roem[1] + S->last_bonus, least = INF;
    uint32_t m = remaining(S);
    for (int i = 0; i < S->n; i++) m |= 1u << S->trick[i];
    while (m) {
        total += S->points[low_card(m)];
        m &= m - 1;
    }
    for (int w0 = S->won[0]; w0 <= 1; w0++)
        for (int w1 = S->won[1]; w1 <= 1; w1++) {
            if (!w0 && !w1) continue;
            int t = (w0 ? S->pending[0] : 0) + (w1 ? S->pending[1] : 0) + (w1 ? 0 : S->pit[0])
                  + (w0 ? 0 : S->pit[1]);
            if (t < least) least = t;
        }
    total += least;
    return S->tie == TIE_HALF ? -(total / 2) : -total;
}

/* The minimax of the value (par) from here (fail-soft). With the majority scoring it is
 * only asked about windows at or below the threshold of making it: a position side 0 can
 * still make answers the threshold, a bound below its true value; a position whose failure
 * is worth alpha or less needs only to know whether side 0 can still make it. */
static int gab(Solver *S, int alpha, int beta) {
    if (spent(S)) return 0;
    uint32_t rem = remaining(S);
    if (!S->n && !rem) return final_value(S);
    if (pc32(rem) == S->players - S->n) {
        int s, pts, roem;
        last_trick(S, &s, &pts, &roem);
        int w = S->won[s];
        S->won[s] = 1;
        S->pts[s] += pts;
        S->roem[s] += roem;
        int v = final_value(S);
        S->pts[s] -= pts;
        S->roem[s] -= roem;
        S->won[s] = w;
        return v;
    }
    if (S->scoring == SCORE_MAJORITY) {
        /* below alpha unless side 0 makes it: then only whether it makes it matters */
        int ub = not_made_bound(S);
        if (ub <= alpha && !S->n) {
            int need = made_threshold(S) - acc_diff(S);
            return dab(S, need - 1, need) >= need ? made_threshold(S) : ub;
        }
    }
    uint32_t tmask = 0;
    for (int i = 0; i < S->n; i++) tmask |= 1u << S->trick[i];
    uint64_t k1 = rem;
    uint64_t k2 = (uint64_t)S->leader | (uint64_t)S->won[0] << 2 | (uint64_t)S->won[1] << 3
                | (uint64_t)(S->pts[0] & 0xFFF) << 4 | (uint64_t)(S->pts[1] & 0xFFF) << 16
                | (uint64_t)(S->roem[0] & 0x3FFFF) << 28 | (uint64_t)(S->roem[1] & 0x3FFFF) << 46;
    int lo = -INF, hi = INF, tt_move = -1;
    if (!S->n) {
        Entry *e = table_find(&S->gtt, k1, k2);
        if (e) {
            lo = e->lo;
            hi = e->hi;
            tt_move = e->move;
            int v;
            if (table_answers(lo, hi, &alpha, &beta, &v)) return v;
        }
    }
    int mover = to_move(S), moves[MAXMOVES];
    int nm = gen_moves(S, mover, rem, tmask, tt_move, moves);
    int maxing = S->side[mover] == 0, a0 = alpha, b0 = beta;
    int best = maxing ? -INF : INF, bm = -1;
    for (int i = 0; i < nm; i++) {
        int c = moves[i];
        Undo u;
        play(S, mover, c, &u);
        int v = gab(S, alpha, beta);
        unplay(S, mover, c, &u);
        if (S->stopped) return 0;  /* cut short: nothing of it is stored */
        if (maxing ? v > best : v < best) {
            best = v;
            bm = c;
            if (maxing ? v > alpha : v < beta) {
                if (maxing) alpha = v; else beta = v;
                if (alpha >= beta) break;
            }
        }
    }
    if (!S->n) {
        searched_bounds(best, a0, b0, &lo, &hi);
        table_put(&S->gtt, k1, k2, lo, hi, bm, pc32(rem));
    }
    return best;
}

typedef int (*Search)(Solver *, int, int);

/* The exact value of a search (known to lie in lo..hi) by null-window tests: the first at
 * ``guess``, then steps that double until the value is bracketed, then halving. */
static int exact(Solver *S, Search search, int guess, int lo, int hi) {
    int beta = guess, step = 8;
    if (beta <= lo) beta = lo + 1;
    if (beta > hi) beta = hi;
    while (lo < hi) {
        int v = search(S, beta - 1, beta);
        if (S->stopped) return 0;
        if (v >= beta) lo = v; else hi = v;
        if (lo >= hi) break;
        if (hi >= INF) { beta = lo + step; step *= 2; }
        else if (lo <= -INF) { beta = hi - step + 1; step *= 2; }
        else beta = lo + (hi - lo + 1) / 2;
        if (beta <= lo) beta = lo + 1;
        if (beta > hi) beta = hi;
    }
    return lo;
}

/* The par of the position searched, from a guess of it. */
static int par_here(Solver *S, int guess) {
    if (S->scoring == SCORE_MAJORITY) {
        int acc = acc_diff(S), need = made_threshold(S) - acc, v = dab(S, need - 1, need);
        if (S->stopped) return 0;
        if (v >= need) return acc + exact(S, dab, guess - acc, v, INF);  /* made */
        int ub = not_made_bound(S);
        return exact(S, gab, ub, -INF, ub);
    }
    return exact(S, gab, guess, -INF, INF);
}

/* ------------------------------------------------------------------ Python */

static int read_ints(PyObject *seq, int *out, Py_ssize_t n, const char *what) {
    PyObject *fast = PySequence_Fast(seq, what);
    if (!fast) return -1;
    if (PySequence_Fast_GET_SIZE(fast) != n) {
        PyErr_Format(PyExc_ValueError, "%s: %zd values expected", what, n);
        Py_DECREF(fast);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
        out[i] = (int)v;
    }
    Py_DECREF(fast);
    return 0;
}

static int read_int(PyObject *o, int *out) {
    long v = PyLong_AsLong(o);
    if (v == -1 && PyErr_Occurred()) return -1;
    *out = (int)v;
    return 0;
}

static void Solver_dealloc(Solver *S) {
    small_free(&S->dtt);
    table_free(&S->gtt);
    PyMem_Free(S->table);
    Py_TYPE(S)->tp_free((PyObject *)S);
}

/* Solver(rules, side, pending): rules is SolveRules.as_tuple() */
static int Solver_init(Solver *S, PyObject *args, PyObject *kw) {
    PyObject *rules, *side, *pending, *f = NULL, *tf = NULL;
    (void)kw;
    if (!PyArg_ParseTuple(args, "OOO", &rules, &side, &pending)) return -1;
    if (S->busy) {
        PyErr_SetString(PyExc_RuntimeError, "this solver is searching in another thread");
        return -1;
    }
    f = PySequence_Fast(rules, "rules must be a tuple");
    if (!f) return -1;
    if (PySequence_Fast_GET_SIZE(f) != 22) {
        PyErr_SetString(PyExc_ValueError, "rules: 22 fields expected");
        goto fail;
    }
    PyObject **it = PySequence_Fast_ITEMS(f);
    int run3, run4, stuk;
    if (read_int(it[0], &S->players) < 0 || read_ints(it[1], S->suit, 32, "suit") < 0
        || read_int(it[2], &S->trump) < 0 || read_ints(it[3], S->strength, 32, "strength") < 0
        || read_ints(it[4], S->points, 32, "points") < 0 || read_int(it[5], &S->last_bonus) < 0
        || read_int(it[6], &S->head_trump) < 0 || read_int(it[7], &S->head_plain) < 0
        || read_int(it[8], &S->void_rule) < 0 || read_int(it[9], &S->undertrump) < 0
        || read_int(it[10], &S->partner_trump) < 0 || read_int(it[11], &S->opp_undertrump) < 0
        || read_int(it[12], &run3) < 0 || read_int(it[13], &run4) < 0
        || read_int(it[14], &stuk) < 0 || read_int(it[15], &S->stuk_value) < 0
        || read_ints(it[16], S->four_kind, 8, "four_kind") < 0
        || read_int(it[17], &S->three_kind) < 0 || read_int(it[18], &S->scoring) < 0
        || read_int(it[19], &S->tie) < 0 || read_ints(it[20], S->pit, 2, "pit") < 0)
        goto fail;
    S->stuk = (uint32_t)stuk;
    tf = PySequence_Fast(it[21], "table");
    if (!tf) goto fail;
    S->table_len = PySequence_Fast_GET_SIZE(tf);
    PyMem_Free(S->table);
    S->table = PyMem_Calloc(S->table_len ? (size_t)S->table_len : 1, sizeof(int));
    if (!S->table) {
        PyErr_NoMemory();
        goto fail;
    }
    if (read_ints(tf, S->table, S->table_len, "table") < 0) goto fail;
    if (S->players != 2 && S->players != 4) {
        PyErr_SetString(PyExc_ValueError, "players: 2 or 4");
        goto fail;
    }
    memset(S->suitmask, 0, sizeof S->suitmask);
    for (int c = 0; c < 32; c++) {
        if (S->suit[c] < 0 || S->suit[c] > 4) {
            PyErr_SetString(PyExc_ValueError, "suit: 0 to 4");
            goto fail;
        }
        S->suitmask[S->suit[c]] |= 1u << c;
    }
    for (int c = 0; c < 32; c++) {
        uint32_t h = 0;
        for (int d = 0; d < 32; d++)
            if (S->suit[d] == S->suit[c] && S->strength[d] > S->strength[c]) h |= 1u << d;
        S->higher[c] = h;
    }
    S->trumps = S->trump >= 0 && S->trump <= 4 ? S->suitmask[S->trump] : 0;
    if (S->trump < 0 || S->trump > 4) S->trump = -1;
    for (int b = 0; b < 256; b++) {
        int best = 0, cur = 0;
        for (int k = 0; k < 8; k++) {
            cur = (b >> k & 1) ? cur + 1 : 0;
            if (cur > best) best = cur;
        }
        S->run_roem[b] = best >= 4 ? run4 : best == 3 ? run3 : 0;
    }
    S->runs = run3 || run4;
    S->has_roem = S->runs || S->stuk_value || S->three_kind;
    for (int r = 0; r < 8; r++) S->has_roem |= S->four_kind[r] != 0;
    if (S->players != 4) S->has_roem = 0;  /* roem is of a trick of four */
    if (read_ints(side, S->side, S->players, "side") < 0
        || read_ints(pending, S->pending, 2, "pending") < 0)
        goto fail;
    small_free(&S->dtt);
    table_free(&S->gtt);
    if (small_init(&S->dtt, 1 << 10, 1 << 19) < 0 || table_init(&S->gtt, 1 << 10, 1 << 20) < 0) {
        PyErr_NoMemory();
        goto fail;
    }
    S->nodes = 0;
    S->node_limit = S->next_check = NO_LIMIT;
    S->deadline = 0;
    S->stopped = 0;
    Py_DECREF(tf);
    Py_DECREF(f);
    return 0;
fail:
    Py_XDECREF(tf);
    Py_XDECREF(f);
    return -1;
}

/* the position to search: (hands, leader, trick, points, roem, won) */
static int set_state(Solver *S, PyObject *state) {
    PyObject *hands, *trick, *pts, *roem, *won, *f;
    int leader;
    if (!PyArg_ParseTuple(state, "OiOOOO", &hands, &leader, &trick, &pts, &roem, &won)) return -1;
    f = PySequence_Fast(hands, "hands");
    if (!f) return -1;
    if (PySequence_Fast_GET_SIZE(f) != S->players) {
        Py_DECREF(f);
        PyErr_SetString(PyExc_ValueError, "hands: one per seat");
        return -1;
    }
    for (int i = 0; i < 4; i++)
        S->hands[i] = i < S->players
            ? (uint32_t)PyLong_AsUnsignedLongMask(PySequence_Fast_GET_ITEM(f, i)) : 0;
    Py_DECREF(f);
    if (PyErr_Occurred()) return -1;
    f = PySequence_Fast(trick, "trick");
    if (!f) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(f);
    if (n >= S->players) {
        Py_DECREF(f);
        PyErr_SetString(PyExc_ValueError, "trick: fewer cards than players");
        return -1;
    }
    S->n = (int)n;
    for (int i = 0; i < S->n; i++)
        if (read_int(PySequence_Fast_GET_ITEM(f, i), &S->trick[i]) < 0) {
            Py_DECREF(f);
            return -1;
        }
    Py_DECREF(f);
    if (read_ints(pts, S->pts, 2, "points") < 0 || read_ints(roem, S->roem, 2, "roem") < 0
        || read_ints(won, S->won, 2, "won") < 0)
        return -1;
    if (leader < 0 || leader >= S->players) {
        PyErr_SetString(PyExc_ValueError, "leader: a seat");
        return -1;
    }
    S->leader = leader;
    S->won[0] = S->won[0] != 0;
    S->won[1] = S->won[1] != 0;
    S->win = 0;
    for (int i = 1; i < S->n; i++)
        if (beats(S, S->trick[i], S->trick[S->win])) S->win = i;
    return 0;
}

/* Take the Solver for a search in this thread (0), or say that another thread has it. */
static int take(Solver *S) {
    if (S->busy) {
        PyErr_SetString(PyExc_RuntimeError, "this solver is searching in another thread");
        return -1;
    }
    S->busy = 1;
    return 0;
}

/* The par of the position set (after ``card``, unless it is -1), searched without the GIL;
 * NULL with OutOfBudget when the budget is spent. The Solver is taken (take) by the caller
 * and given back here. */
static PyObject *search_released(Solver *S, int card, int guess) {
    int v, stopped;
    Py_BEGIN_ALLOW_THREADS
    if (card >= 0) {
        Undo u;
        int mover = to_move(S);
        play(S, mover, card, &u);
        v = par_here(S, guess);
        unplay(S, mover, card, &u);
    } else {
        v = par_here(S, guess);
    }
    stopped = S->stopped;
    Py_END_ALLOW_THREADS
    S->busy = 0;
    if (stopped) {
        PyErr_Format(OutOfBudget, "the search went past its budget (%lld positions searched)",
                     S->nodes);
        return NULL;
    }
    return PyLong_FromLong(v);
}

static PyObject *Solver_par(Solver *S, PyObject *args) {
    PyObject *state;
    int guess = 0;
    if (!PyArg_ParseTuple(args, "O|i", &state, &guess)) return NULL;
    if (take(S) < 0) return NULL;
    if (set_state(S, state) < 0) {
        S->busy = 0;
        return NULL;
    }
    return search_released(S, -1, guess);
}

static PyObject *Solver_after(Solver *S, PyObject *args) {
    PyObject *state;
    int card, guess = 0;
    if (!PyArg_ParseTuple(args, "Oi|i", &state, &card, &guess)) return NULL;
    if (take(S) < 0) return NULL;
    if (set_state(S, state) < 0) {
        S->busy = 0;
        return NULL;
    }
    if (card < 0 || card > 31 || !(legal(S, S->hands[to_move(S)]) >> card & 1)) {
        S->busy = 0;
        PyErr_SetString(PyExc_ValueError, "not a legal card of the seat to play");
        return NULL;
    }
    return search_released(S, card, guess);
}

/* limit(nodes=0, seconds=0.0): from now on, search at most nodes more positions and for at
 * most seconds (0: no such limit) */
static PyObject *Solver_limit(Solver *S, PyObject *args) {
    long long nodes = 0;
    double seconds = 0;
    if (!PyArg_ParseTuple(args, "|Ld", &nodes, &seconds)) return NULL;
    if (take(S) < 0) return NULL;
    S->node_limit = nodes > 0 ? S->nodes + nodes : NO_LIMIT;
    S->deadline = seconds > 0 ? clock_seconds() + seconds : 0;
    S->stopped = 0;
    S->next_check = S->node_limit;
    if (S->deadline > 0 && S->nodes + CHECK_EVERY < S->next_check)
        S->next_check = S->nodes + CHECK_EVERY;
    S->busy = 0;
    Py_RETURN_NONE;
}

static PyObject *Solver_legal(Solver *S, PyObject *args) {
    PyObject *state;
    if (!PyArg_ParseTuple(args, "O", &state)) return NULL;
    if (take(S) < 0) return NULL;
    PyObject *out = set_state(S, state) < 0 ? NULL
        : PyLong_FromUnsignedLong(legal(S, S->hands[to_move(S)]));
    S->busy = 0;
    return out;
}

static PyObject *Solver_get_nodes(Solver *S, void *closure) {
    (void)closure;
    return PyLong_FromLongLong(S->nodes);
}

static PyObject *Solver_get_entries(Solver *S, void *closure) {
    (void)closure;
    return PyLong_FromSize_t(S->dtt.count + S->gtt.count);
}

static PyMethodDef Solver_methods[] = {
    {"par", (PyCFunction)Solver_par, METH_VARARGS, "par(state, guess=0): the par of a position"},
    {"after", (PyCFunction)Solver_after, METH_VARARGS,
     "after(state, card, guess=0): the par once the seat to play has played card"},
    {"legal", (PyCFunction)Solver_legal, METH_VARARGS, "legal(state): the legal cards, a mask"},
    {"limit", (PyCFunction)Solver_limit, METH_VARARGS,
     "limit(nodes=0, seconds=0.0): from now on, search at most nodes more positions and for "
     "at most seconds (0: no such limit); past either, par and after raise OutOfBudget"},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef Solver_getset[] = {
    {"nodes", (getter)Solver_get_nodes, NULL, "positions searched so far", NULL},
    {"entries", (getter)Solver_get_entries, NULL, "positions kept in the tables", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject SolverType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "jaslog.analysis._solver.Solver",
    .tp_basicsize = sizeof(Solver),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Solver(rules, side, pending): the search of one deal, with its tables",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Solver_init,
    .tp_dealloc = (destructor)Solver_dealloc,
    .tp_methods = Solver_methods,
    .tp_getset = Solver_getset,
};

static struct PyModuleDef solver_module = {
    PyModuleDef_HEAD_INIT, "_solver", "The solver's search, compiled.", -1,
    NULL, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__solver(void) {
    if (PyType_Ready(&SolverType) < 0) return NULL;
    PyObject *m = PyModule_Create(&solver_module);
    if (!m) return NULL;
    Py_INCREF(&SolverType);
    if (PyModule_AddObject(m, "Solver", (PyObject *)&SolverType) < 0) {
        Py_DECREF(&SolverType);
        Py_DECREF(m);
        return NULL;
    }
    OutOfBudget = PyErr_NewExceptionWithDoc(
        "jaslog.analysis._solver.OutOfBudget",
        "The search went past its budget (Solver.limit) and stopped.", NULL, NULL);
    if (!OutOfBudget || PyModule_AddObjectRef(m, "OutOfBudget", OutOfBudget) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
