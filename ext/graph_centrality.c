/*
** graph_centrality.c: centralities and communities over any edge table or
** view, the whole-graph jobs networkx and igraph users reach for after
** PageRank and components (issue 38).
**
**   graph_betweenness(source, from_col, to_col[, weight_col[, normalized[, endpoints[, samples[, seed[,
**                     layout[, direction]]]]]]])                  -> (node, betweenness)
**   graph_closeness(source, from_col, to_col[, weight_col[, wf_improved[, layout[, direction]]]])
**                                                                    -> (node, closeness)
**   graph_hits(source, from_col, to_col[, weight_col[, max_iter[, tol[, layout[, direction]]]]])
**                                                                    -> (node, hub, authority)
**   graph_core_number(source, from_col, to_col[, layout[, direction]])  -> (node, core)
**   graph_clustering(source, from_col, to_col[, weight_col[, layout[, direction]]])
**                                                                    -> (node, clustering)
**   graph_louvain(source, from_col, to_col[, weight_col[, resolution[, seed[, threshold[, layout[,
**                 direction]]]]]])                                  -> (node, community)
**
** Each is networkx's function of the same name (betweenness_centrality,
** closeness_centrality, hits, core_number, clustering, louvain_communities)
** with its defaults; docs/graph_batch.md states each one's semantics. The
** edge source is ext/graph_source.c's (tables, views, the JSON layout, a
** graph_index), read once into a GraphCsr by graphSourceLoad(), as the jobs
** of ext/graph_batch.c read it. The arguments are hidden columns of those
** names; the optional ones may also come as a JSON object, the last
** argument given (`'{"normalized": false}'`), whose keys are the same names
** (GraphJob.aInput, read by nosqlOptionsRead() as every graph function's).
** The virtual-table glue (module, connect, planning, the reading of the
** arguments, the rows) is ext/graph_batch.c's, which every whole-graph job
** shares (graphJobRegister()); this file holds the jobs.
**
** How it works. The GraphCsr is turned into the simple graph each job
** needs (GcAdj, gcAdjBuild()): per node a neighbour list, made in one pass
** over the edges with a stamp per neighbour to find duplicates (no sort),
** without self-loops where the job ignores them, duplicate edges merged as
** the job says (the cheapest for shortest paths, the heaviest for
** clustering, summed for HITS and Louvain; docs/graph_batch.md has the
** table). Then:
**
**   - betweenness: Brandes' algorithm, a breadth-first search (Dijkstra
**     with a weight column, a binary heap ordered as networkx's is) from
**     each source, predecessor lists in one pool, dependencies accumulated
**     in reverse order; `samples` sources drawn as networkx draws them
**     (Python's Mersenne Twister and random.sample(), GcRandom);
**   - closeness: a search from each node over the reversed edges
**     (inward distances, as networkx), Wasserman-Faust scaling;
**   - HITS: networkx's power iteration (hubs and authorities scaled by
**     their maximum each step, stopping when the hubs change by less than
**     tol in L1), then normalized to sum 1;
**   - core numbers: Batagelj-Zaversnik's bucket algorithm, O(m);
**   - clustering: triangles where two forward lists meet (nodes
**     ranked by degree), each triangle found once and credited to its three
**     nodes (weighted: the geometric mean of the normalized weights);
**   - Louvain: local moving in a seeded random order, then aggregation of
**     the communities into one node each, level by level on CSR arrays,
**     until the modularity gains no more than `threshold`.
**
** Interrupts and progress handlers are checked every GC_PING_EVERY sources
** of a search, every HITS step and every 4096 * GC_PING_EVERY nodes of the
** other passes (graphBatchPing()).
*/
#include "nosqlInt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Graphs with more edges than this are refused with an error, as graph_batch.c does. */
#ifndef GC_MAX_EDGE
#define GC_MAX_EDGE 200000000
#endif

#define GC_PING_EVERY 64 /* Sources (betweenness, closeness) or 4096 x this nodes between two pings */

/**************************************************************************
** Python's random numbers (the Mersenne Twister of random.Random(seed)),
** so that betweenness with `samples` picks the sources networkx picks and
** Louvain shuffles as networkx's louvain_communities does.
*/
typedef struct GcRandom GcRandom;
struct GcRandom {
  unsigned int mt[624]; /* State */
  int i;                /* Next word of the state */
};

static void gcRandomInitGenrand(GcRandom *p, unsigned int s) {
  int i;
  p->mt[0] = s;
  for (i = 1; i < 624; i++) p->mt[i] = 1812433253U * (p->mt[i - 1] ^ (p->mt[i - 1] >> 30)) + (unsigned)i;
  p->i = 624;
}

/* random.Random(seed) for an integer seed of 0 or more: init_by_array of its 32-bit words. */
static void gcRandomSeed(GcRandom *p, sqlite3_uint64 seed) {
  unsigned int key[2];
  int nKey = seed >> 32 ? 2 : 1, i = 1, j = 0, k;
  key[0] = (unsigned int)seed;
  key[1] = (unsigned int)(seed >> 32);
  gcRandomInitGenrand(p, 19650218U);
  for (k = 624 > nKey ? 624 : nKey; k; k--) {
    p->mt[i] = (p->mt[i] ^ ((p->mt[i - 1] ^ (p->mt[i - 1] >> 30)) * 1664525U)) + key[j] + (unsigned)j;
    i++;
    j++;
    if (i >= 624) {
      p->mt[0] = p->mt[623];
      i = 1;
    }
    if (j >= nKey) j = 0;
  }
  for (k = 623; k; k--) {
    p->mt[i] = (p->mt[i] ^ ((p->mt[i - 1] ^ (p->mt[i - 1] >> 30)) * 1566083941U)) - (unsigned)i;
    i++;
    if (i >= 624) {
      p->mt[0] = p->mt[623];
      i = 1;
    }
  }
  p->mt[0] = 0x80000000U;
}

static unsigned int gcRandomU32(GcRandom *p) {
  unsigned int y;
  if (p->i >= 624) {
    int k;
    for (k = 0; k < 624; k++) {
      y = (p->mt[k] & 0x80000000U) | (p->mt[(k + 1) % 624] & 0x7fffffffU);
      p->mt[k] = p->mt[(k + 397) % 624] ^ (y >> 1) ^ ((y & 1U) ? 0x9908b0dfU : 0U);
    }
    p->i = 0;
  }
  y = p->mt[p->i++];
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680U;
  y ^= (y << 15) & 0xefc60000U;
  y ^= y >> 18;
  return y;
}

/* Python's _randbelow(n) for 0 < n < 2^31: getrandbits(n.bit_length()) until below n. */
static int gcRandomBelow(GcRandom *p, int n) {
  int k = 0;
  unsigned int r;
  while ((n >> k) != 0) k++;
  do {
    r = gcRandomU32(p) >> (32 - k);
  } while (r >= (unsigned int)n);
  return (int)r;
}

/* Python's random.shuffle(a). */
static void gcRandomShuffle(GcRandom *p, int *a, int n) {
  int i;
  for (i = n - 1; i > 0; i--) {
    int j = gcRandomBelow(p, i + 1), t = a[i];
    a[i] = a[j];
    a[j] = t;
  }
}

/*
** Python's random.sample(range(n), k) (3.11) into aOut[0..k): a pool for
** small n, else draws with a set of those taken (aTaken, n bytes, zeroed
** here). SQLITE_OK or SQLITE_NOMEM.
*/
static int gcRandomSample(GcRandom *p, int n, int k, int *aOut) {
  int setsize = 21, i;
  if (k > 5) {
    /* setsize += 4 ** ceil(log(k * 3, 4)) */
    int e = (int)ceil(log((double)k * 3) / log(4.0));
    setsize += (int)pow(4.0, e);
  }
  if (n <= setsize) {
    int *aPool = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)n + 1));
    if (aPool == NULL) return SQLITE_NOMEM;
    for (i = 0; i < n; i++) aPool[i] = i;
    for (i = 0; i < k; i++) {
      int j = gcRandomBelow(p, n - i);
      aOut[i] = aPool[j];
      aPool[j] = aPool[n - i - 1];
    }
    sqlite3_free(aPool);
  } else {
    unsigned char *aTaken = (unsigned char *)sqlite3_malloc64((sqlite3_uint64)n + 1);
    if (aTaken == NULL) return SQLITE_NOMEM;
    memset(aTaken, 0, (size_t)n);
    for (i = 0; i < k; i++) {
      int j = gcRandomBelow(p, n);
      while (aTaken[j]) j = gcRandomBelow(p, n);
      aTaken[j] = 1;
      aOut[i] = j;
    }
    sqlite3_free(aTaken);
  }
  return SQLITE_OK;
}

/**************************************************************************
** The simple graph a job reads (GcAdj).
*/

#define GC_MERGE_MIN 0 /* Duplicate edges: the least weight (shortest paths) */
#define GC_MERGE_MAX 1 /* ... the greatest (weighted clustering) */
#define GC_MERGE_SUM 2 /* ... the sum; without weights the count (HITS, Louvain) */

#define GC_LOOPS_DROP 0  /* Self-loops left out */
#define GC_LOOPS_APART 1 /* ... their weight summed in GcAdj.aLoop (Louvain) */
#define GC_LOOPS_KEEP 2  /* ... kept in the lists, once each (HITS: the adjacency matrix) */

typedef struct GcAdj GcAdj;
struct GcAdj {
  int n;               /* Nodes (those of the GraphCsr, same numbers) */
  sqlite3_int64 *aOff; /* n + 1 offsets into aNbr */
  int *aNbr;           /* Neighbours of each node, each once, in the source's order */
  double *aW;          /* Their weights (merged), or NULL: every weight 1 */
  double *aLoop;       /* bLoops: self-loop weight of each node (summed), else NULL */
};

static void gcAdjFree(GcAdj *p) {
  sqlite3_free(p->aOff);
  sqlite3_free(p->aNbr);
  sqlite3_free(p->aW);
  sqlite3_free(p->aLoop);
  memset(p, 0, sizeof(*p));
}

/*
** Build *p from pCsr: node a's neighbours are the b of its edges a -> b
** (GRAPH_DIR_OUT), b -> a (GRAPH_DIR_IN) or both (GRAPH_DIR_BOTH: the
** undirected graph, a self-loop once). Self-loops as eLoops says
** (GC_LOOPS_*), duplicates merged by eMerge; weights kept when bWeight and
** the source has them, or eMerge is GC_MERGE_SUM (edge counts). One pass over the edges: a stamp per
** neighbour (aMark[b] == a: already in a's list, at aPos[b]) finds
** duplicates without sorting. Lists keep the order of the source.
*/
static int gcAdjBuild(const GraphCsr *pCsr, int eDir, int eMerge, int eLoops, int bWeight, GcAdj *p) {
  int n = pCsr->vals.n, a, pass, rc = SQLITE_OK;
  int bW = (bWeight && pCsr->aOutW != NULL) || eMerge == GC_MERGE_SUM;
  sqlite3_int64 k, nAll = 0, nOut = 0;
  int *aMark = NULL;
  sqlite3_int64 *aPos = NULL;
  memset(p, 0, sizeof(*p));
  p->n = n;
  if (eDir & GRAPH_DIR_OUT) nAll += pCsr->nEdge;
  if (eDir & GRAPH_DIR_IN) nAll += pCsr->nEdge;
  p->aOff = (sqlite3_int64 *)sqlite3_malloc64(sizeof(sqlite3_int64) * ((sqlite3_uint64)n + 1));
  p->aNbr = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)nAll + 1));
  if (bW) p->aW = (double *)sqlite3_malloc64(sizeof(double) * ((sqlite3_uint64)nAll + 1));
  if (eLoops == GC_LOOPS_APART)
    p->aLoop = (double *)sqlite3_malloc64(sizeof(double) * ((sqlite3_uint64)n + 1));
  aMark = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)n + 1));
  aPos = (sqlite3_int64 *)sqlite3_malloc64(sizeof(sqlite3_int64) * ((sqlite3_uint64)n + 1));
  if (p->aOff == NULL || p->aNbr == NULL || (bW && p->aW == NULL) ||
      (eLoops == GC_LOOPS_APART && !p->aLoop) || aMark == NULL || aPos == NULL) {
    rc = SQLITE_NOMEM;
    goto adj_done;
  }
  for (a = 0; a < n; a++) aMark[a] = -1;
  for (a = 0; a < n; a++) {
    p->aOff[a] = nOut;
    if (p->aLoop) p->aLoop[a] = 0;
    for (pass = 0; pass < 2; pass++) {
      const sqlite3_int64 *aO = pass ? pCsr->aInOff : pCsr->aOutOff;
      const int *aE = pass ? pCsr->aIn : pCsr->aOut;
      const double *aEW = pass ? pCsr->aInW : pCsr->aOutW;
      /* Pass 0 reads a's out-edges: a's neighbours when eDir has OUT. */
      if (!(eDir & (pass ? GRAPH_DIR_IN : GRAPH_DIR_OUT))) continue;
      for (k = aO[a]; k < aO[a + 1]; k++) {
        int b = aE[k];
        double w = aEW && bWeight ? aEW[k] : 1.0;
        if (b == a) {
          /* A self-loop is in both of a's lists: taken from the first read. */
          if (pass == 1 && (eDir & GRAPH_DIR_OUT)) continue;
          if (eLoops == GC_LOOPS_APART) p->aLoop[a] += w;
          if (eLoops != GC_LOOPS_KEEP) continue;
        }
        if (aMark[b] == a) {
          /* (aPos[] is only read with weights: a plain list needs the stamp alone.) */
          if (bW) {
            double *pW = &p->aW[aPos[b]];
            if (eMerge == GC_MERGE_SUM) {
              *pW += w;
            } else if (eMerge == GC_MERGE_MIN ? w < *pW : w > *pW) {
              *pW = w;
            }
          }
          continue;
        }
        aMark[b] = a;
        if (bW) aPos[b] = nOut;
        p->aNbr[nOut] = b;
        if (bW) p->aW[nOut] = w;
        nOut++;
      }
    }
  }
  p->aOff[n] = nOut;
adj_done:
  sqlite3_free(aMark);
  sqlite3_free(aPos);
  if (rc != SQLITE_OK) gcAdjFree(p);
  return rc;
}

/**************************************************************************
** Betweenness and closeness: a search from each source.
*/

/* A heap entry of Dijkstra's search: networkx's (dist, count, pred, v). */
typedef struct GcHeapEnt GcHeapEnt;
struct GcHeapEnt {
  double rDist;       /* Distance */
  sqlite3_int64 iSeq; /* Push order: ties go to the earlier push */
  int iPred;          /* The node it was pushed from */
  int v;              /* The node */
};

static int gcHeapLess(const GcHeapEnt *a, const GcHeapEnt *b) {
  return a->rDist < b->rDist || (a->rDist == b->rDist && a->iSeq < b->iSeq);
}

static void gcHeapPush(GcHeapEnt *a, sqlite3_int64 *pn, GcHeapEnt e) {
  sqlite3_int64 i = (*pn)++;
  while (i > 0) {
    sqlite3_int64 up = (i - 1) / 2;
    if (!gcHeapLess(&e, &a[up])) break;
    a[i] = a[up];
    i = up;
  }
  a[i] = e;
}

static GcHeapEnt gcHeapPop(GcHeapEnt *a, sqlite3_int64 *pn) {
  GcHeapEnt top = a[0], last = a[--(*pn)];
  sqlite3_int64 i = 0, n = *pn;
  for (;;) {
    sqlite3_int64 c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && gcHeapLess(&a[c + 1], &a[c])) c++;
    if (!gcHeapLess(&a[c], &last)) break;
    a[i] = a[c];
    i = c;
  }
  if (n > 0) a[i] = last;
  return top;
}

/*
** The reusable arrays of one search after another (Brandes): per node the
** distance, the number of shortest paths, the dependency, a head into the
** predecessor pool; the order nodes were settled in; the heap.
*/
typedef struct GcSearch GcSearch;
struct GcSearch {
  const GcAdj *pAdj;    /* The graph searched */
  double *aDist;        /* Distance from the source (valid where aSeen) */
  double *aSigma;       /* Shortest paths from the source */
  double *aDelta;       /* Dependency of the source on the node */
  unsigned char *aSeen; /* 1: reached (Dijkstra: pushed), 2: settled */
  int *aOrder;          /* Nodes in the order settled */
  int nOrder;           /* Entries in aOrder */
  int *aPredHead;       /* First predecessor entry of each node, -1: none */
  int *aPredNext;       /* Pool: next entry */
  int *aPredNode;       /* Pool: the predecessor */
  sqlite3_int64 nPred;  /* Pool entries used */
  GcHeapEnt *aHeap;     /* Dijkstra's heap */
  sqlite3_int64 nHeap;  /* Entries in it */
  int *aQueue;          /* Breadth-first queue (aOrder serves) */
};

static void gcSearchFree(GcSearch *p) {
  sqlite3_free(p->aDist);
  sqlite3_free(p->aSigma);
  sqlite3_free(p->aDelta);
  sqlite3_free(p->aSeen);
  sqlite3_free(p->aOrder);
  sqlite3_free(p->aPredHead);
  sqlite3_free(p->aPredNext);
  sqlite3_free(p->aPredNode);
  sqlite3_free(p->aHeap);
  memset(p, 0, sizeof(*p));
}

static int gcSearchInit(GcSearch *p, const GcAdj *pAdj) {
  sqlite3_uint64 n = (sqlite3_uint64)pAdj->n + 1, m = (sqlite3_uint64)pAdj->aOff[pAdj->n] + 1;
  memset(p, 0, sizeof(*p));
  p->pAdj = pAdj;
  p->aDist = (double *)sqlite3_malloc64(sizeof(double) * n);
  p->aSigma = (double *)sqlite3_malloc64(sizeof(double) * n);
  p->aDelta = (double *)sqlite3_malloc64(sizeof(double) * n);
  p->aSeen = (unsigned char *)sqlite3_malloc64(n);
  p->aOrder = (int *)sqlite3_malloc64(sizeof(int) * n);
  p->aPredHead = (int *)sqlite3_malloc64(sizeof(int) * n);
  p->aPredNext = (int *)sqlite3_malloc64(sizeof(int) * m);
  p->aPredNode = (int *)sqlite3_malloc64(sizeof(int) * m);
  if (pAdj->aW) p->aHeap = (GcHeapEnt *)sqlite3_malloc64(sizeof(GcHeapEnt) * (m + n));
  if (!p->aDist || !p->aSigma || !p->aDelta || !p->aSeen || !p->aOrder || !p->aPredHead || !p->aPredNext ||
      !p->aPredNode || (pAdj->aW && !p->aHeap)) {
    gcSearchFree(p);
    return SQLITE_NOMEM;
  }
  memset(p->aSeen, 0, (size_t)pAdj->n);
  return SQLITE_OK;
}

static void gcPredAdd(GcSearch *p, int w, int v) {
  int i = (int)p->nPred++;
  p->aPredNode[i] = v;
  p->aPredNext[i] = p->aPredHead[w];
  p->aPredHead[w] = i;
}

/*
** One search from s, networkx's _single_source_shortest_path_basic (no
** weights: breadth first) or _single_source_dijkstra_path_basic (weights:
** the heap, and equal distances as networkx compares them). Afterwards
** aOrder[0..nOrder) are the nodes reached in the order settled, with
** aDist, aSigma and their predecessors. bPaths 0: distances only
** (closeness).
*/
static void gcSearchRun(GcSearch *p, int s, int bPaths) {
  const GcAdj *pAdj = p->pAdj;
  int i;
  sqlite3_int64 k;
  /* Clear what the previous search touched. */
  for (i = 0; i < p->nOrder; i++) p->aSeen[p->aOrder[i]] = 0;
  if (pAdj->aW) {
    for (k = 0; k < p->nHeap; k++) p->aSeen[p->aHeap[k].v] = 0;
  }
  p->nOrder = 0;
  p->nPred = 0;
  p->nHeap = 0;
  if (pAdj->aW == NULL) {
    int iHead = 0;
    p->aSeen[s] = 2;
    p->aDist[s] = 0;
    p->aSigma[s] = 1.0;
    p->aPredHead[s] = -1;
    p->aOrder[p->nOrder++] = s;
    while (iHead < p->nOrder) {
      int v = p->aOrder[iHead++];
      double d = p->aDist[v] + 1;
      for (k = pAdj->aOff[v]; k < pAdj->aOff[v + 1]; k++) {
        int w = pAdj->aNbr[k];
        if (!p->aSeen[w]) {
          p->aSeen[w] = 2;
          p->aDist[w] = d;
          p->aSigma[w] = 0;
          p->aPredHead[w] = -1;
          p->aOrder[p->nOrder++] = w;
        }
        if (bPaths && p->aDist[w] == d) {
          p->aSigma[w] += p->aSigma[v];
          gcPredAdd(p, w, v);
        }
      }
    }
  } else {
    sqlite3_int64 iSeq = 0;
    GcHeapEnt e;
    e.rDist = 0;
    e.iSeq = iSeq++;
    e.iPred = s;
    e.v = s;
    p->aSeen[s] = 1;
    p->aDist[s] = 0; /* networkx's seen[] until settled, then D[] */
    p->aSigma[s] = 1.0;
    p->aPredHead[s] = -1;
    gcHeapPush(p->aHeap, &p->nHeap, e);
    while (p->nHeap > 0) {
      int v;
      double d;
      e = gcHeapPop(p->aHeap, &p->nHeap);
      v = e.v;
      if (p->aSeen[v] == 2) continue;
      p->aSigma[v] += p->aSigma[e.iPred];
      p->aSeen[v] = 2;
      p->aDist[v] = d = e.rDist;
      p->aOrder[p->nOrder++] = v;
      for (k = pAdj->aOff[v]; k < pAdj->aOff[v + 1]; k++) {
        int w = pAdj->aNbr[k];
        double dw = d + pAdj->aW[k];
        if (p->aSeen[w] != 2 && (p->aSeen[w] == 0 || dw < p->aDist[w])) {
          GcHeapEnt f;
          p->aSeen[w] = 1;
          p->aDist[w] = dw;
          f.rDist = dw;
          f.iSeq = iSeq++;
          f.iPred = v;
          f.v = w;
          gcHeapPush(p->aHeap, &p->nHeap, f);
          p->aSigma[w] = 0;
          p->aPredHead[w] = -1;
          if (bPaths) gcPredAdd(p, w, v);
        } else if (bPaths && dw == p->aDist[w]) {
          p->aSigma[w] += p->aSigma[v];
          gcPredAdd(p, w, v);
        }
      }
    }
  }
}

/* The options of graph_betweenness, as read. */
typedef struct GcBetweenArgs GcBetweenArgs;
struct GcBetweenArgs {
  int bNormalized;     /* networkx's normalized (default 1) */
  int bEndpoints;      /* endpoints (default 0) */
  int bDirected;       /* The direction is not 'both' */
  int nSample;         /* samples (networkx's k), 0: every node */
  sqlite3_int64 iSeed; /* seed */
};

/*
** Brandes' betweenness into aOut[0..n), networkx's betweenness_centrality
** (its accumulation and _rescale()).
*/
static int gcBetweenness(sqlite3_stmt *pPing, const GcAdj *pAdj, const GcBetweenArgs *pArgs, double *aOut) {
  int n = pAdj->n, i, rc, nSrc = n, *aSrc = NULL;
  GcSearch s;
  double rScale = 0;
  int bScale = 1;
  for (i = 0; i < n; i++) aOut[i] = 0;
  rc = gcSearchInit(&s, pAdj);
  if (rc != SQLITE_OK) return rc;
  if (pArgs->nSample > 0) {
    GcRandom rnd;
    nSrc = pArgs->nSample;
    aSrc = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)nSrc + 1));
    if (aSrc == NULL) {
      gcSearchFree(&s);
      return SQLITE_NOMEM;
    }
    gcRandomSeed(&rnd, (sqlite3_uint64)pArgs->iSeed);
    rc = gcRandomSample(&rnd, n, nSrc, aSrc);
  }
  for (i = 0; rc == SQLITE_OK && i < nSrc; i++) {
    int src = aSrc ? aSrc[i] : i, j;
    if (i % GC_PING_EVERY == GC_PING_EVERY - 1 && (rc = graphBatchPing(pPing)) != SQLITE_OK) break;
    gcSearchRun(&s, src, 1);
    if (pArgs->bEndpoints) aOut[src] += s.nOrder - 1;
    for (j = 0; j < s.nOrder; j++) s.aDelta[s.aOrder[j]] = 0;
    for (j = s.nOrder - 1; j >= 0; j--) {
      int w = s.aOrder[j], e;
      double rCoeff = (1 + s.aDelta[w]) / s.aSigma[w];
      for (e = s.aPredHead[w]; e >= 0; e = s.aPredNext[e]) {
        int v = s.aPredNode[e];
        s.aDelta[v] += s.aSigma[v] * rCoeff;
      }
      if (w != src) aOut[w] += s.aDelta[w] + (pArgs->bEndpoints ? 1 : 0);
    }
  }
  gcSearchFree(&s);
  sqlite3_free(aSrc);
  if (rc != SQLITE_OK) return rc;
  /* networkx's _rescale(). */
  if (pArgs->bNormalized) {
    if (pArgs->bEndpoints) {
      bScale = n >= 2;
      if (bScale) rScale = 1.0 / ((double)n * (n - 1));
    } else {
      bScale = n > 2;
      if (bScale) rScale = 1.0 / ((double)(n - 1) * (n - 2));
    }
  } else {
    bScale = !pArgs->bDirected;
    rScale = 0.5;
  }
  if (bScale) {
    if (pArgs->nSample > 0) rScale = rScale * n / pArgs->nSample;
    for (i = 0; i < n; i++) aOut[i] *= rScale;
  }
  return SQLITE_OK;
}

/*
** networkx's closeness_centrality into aOut: pAdj holds the reversed edges
** (inward distances), so a search from u over it finds the distances to u.
*/
static int gcCloseness(sqlite3_stmt *pPing, const GcAdj *pAdj, int bWfImproved, double *aOut) {
  int n = pAdj->n, u, rc;
  GcSearch s;
  rc = gcSearchInit(&s, pAdj);
  for (u = 0; rc == SQLITE_OK && u < n; u++) {
    double rTot = 0, rCc = 0;
    int j;
    if (u % GC_PING_EVERY == GC_PING_EVERY - 1 && (rc = graphBatchPing(pPing)) != SQLITE_OK) break;
    gcSearchRun(&s, u, 0);
    for (j = 0; j < s.nOrder; j++) rTot += s.aDist[s.aOrder[j]];
    if (rTot > 0.0 && n > 1) {
      rCc = (s.nOrder - 1) / rTot;
      if (bWfImproved) rCc *= (s.nOrder - 1) / (double)(n - 1);
    }
    aOut[u] = rCc;
  }
  gcSearchFree(&s);
  return rc;
}

/**************************************************************************
** HITS: networkx's power iteration (_hits_python).
*/

/*
** Hubs and authorities into aHub, aAuth. pAdj holds out-edges with
** weights (edge counts without a weight column). SQLITE_DONE when max_iter
** iterations do not converge.
*/
static int gcHits(sqlite3_stmt *pPing, const GcAdj *pAdj, int nMaxIter, double rTol, double *aHub,
                  double *aAuth) {
  int n = pAdj->n, v, it, rc = SQLITE_OK;
  double *aLast = (double *)sqlite3_malloc64(sizeof(double) * ((sqlite3_uint64)n + 1));
  sqlite3_int64 k;
  if (aLast == NULL) return SQLITE_NOMEM;
  for (v = 0; v < n; v++) aHub[v] = 1.0 / n;
  for (it = 0;; it++) {
    double rMax, rErr = 0, rSum;
    if (it >= nMaxIter) {
      rc = SQLITE_DONE;
      break;
    }
    if ((rc = graphBatchPing(pPing)) != SQLITE_OK) break;
    memcpy(aLast, aHub, sizeof(double) * (size_t)n);
    for (v = 0; v < n; v++) aAuth[v] = 0;
    for (v = 0; v < n; v++) {
      double h = aLast[v];
      for (k = pAdj->aOff[v]; k < pAdj->aOff[v + 1]; k++) aAuth[pAdj->aNbr[k]] += h * pAdj->aW[k];
    }
    for (v = 0; v < n; v++) {
      double h = 0;
      for (k = pAdj->aOff[v]; k < pAdj->aOff[v + 1]; k++) h += aAuth[pAdj->aNbr[k]] * pAdj->aW[k];
      aHub[v] = h;
    }
    rMax = 0;
    for (v = 0; v < n; v++) rMax = aHub[v] > rMax ? aHub[v] : rMax;
    if (rMax == 0) break; /* No edges: every value 0 */
    for (v = 0; v < n; v++) aHub[v] *= 1.0 / rMax;
    rMax = 0;
    for (v = 0; v < n; v++) rMax = aAuth[v] > rMax ? aAuth[v] : rMax;
    for (v = 0; v < n; v++) aAuth[v] *= 1.0 / rMax;
    for (v = 0; v < n; v++) rErr += fabs(aHub[v] - aLast[v]);
    if (rErr < rTol) {
      rSum = 0;
      for (v = 0; v < n; v++) rSum += aAuth[v];
      for (v = 0; v < n; v++) aAuth[v] *= 1.0 / rSum;
      rSum = 0;
      for (v = 0; v < n; v++) rSum += aHub[v];
      for (v = 0; v < n; v++) aHub[v] *= 1.0 / rSum;
      break;
    }
  }
  sqlite3_free(aLast);
  return rc;
}

/**************************************************************************
** Core numbers: Batagelj and Zaversnik, "An O(m) Algorithm for Cores
** Decomposition of Networks" (2003), on the undirected simple graph read
** straight from the GraphCsr's out- and in-lists: a stamp per neighbour
** (aMark[u] == v, then v + n in the second pass) skips duplicate edges
** and self-loops, so no simple copy of the graph is built.
*/

/* BZ's step for neighbour u of v: u, if above v's bin, moves to the front of its bin, then into the bin
 * below. */
static void gcCoreMove(int u, int v, int *aDeg, int *aPos, int *aVert, int *aBin) {
  if (aDeg[u] > aDeg[v]) {
    int du = aDeg[u], pu = aPos[u], pw = aBin[du], w = aVert[pw];
    if (u != w) {
      aPos[u] = pw;
      aVert[pu] = w;
      aPos[w] = pu;
      aVert[pw] = u;
    }
    aBin[du]++;
    aDeg[u]--;
  }
}

static int gcCoreNumber(const GraphCsr *pCsr, sqlite3_int64 *aCore) {
  int n = pCsr->vals.n, v, u, i, md = 0;
  sqlite3_int64 k;
  int *aDeg = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)n + 1));
  int *aVert = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)n + 1));
  int *aPos = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)n + 1));
  int *aMark = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)n + 1));
  int *aBin = NULL, rc = SQLITE_NOMEM;
  if (aDeg == NULL || aVert == NULL || aPos == NULL || aMark == NULL) goto core_done;
  for (v = 0; v < n; v++) aMark[v] = -1;
  for (v = 0; v < n; v++) {
    int d = 0, iPass;
    for (iPass = 0; iPass < 2; iPass++) {
      const sqlite3_int64 *aO = iPass ? pCsr->aInOff : pCsr->aOutOff;
      const int *aE = iPass ? pCsr->aIn : pCsr->aOut;
      for (k = aO[v]; k < aO[v + 1]; k++) {
        u = aE[k];
        if (u != v && aMark[u] != v) {
          aMark[u] = v;
          d++;
        }
      }
    }
    aDeg[v] = d;
    if (d > md) md = d;
  }
  aBin = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)md + 2));
  if (aBin == NULL) goto core_done;
  memset(aBin, 0, sizeof(int) * ((size_t)md + 2));
  for (v = 0; v < n; v++) aBin[aDeg[v]]++;
  for (i = 0, v = 0; i <= md; i++) {
    int c = aBin[i];
    aBin[i] = v;
    v += c;
  }
  for (v = 0; v < n; v++) {
    aPos[v] = aBin[aDeg[v]]++;
    aVert[aPos[v]] = v;
  }
  for (i = md; i > 0; i--) aBin[i] = aBin[i - 1];
  aBin[0] = 0;
  for (i = 0; i < n; i++) {
    int iPass;
    /* Nodes come in bin order, each list a random read: fetch ahead (a
    ** hint only: a later move may change aVert[i + 2]). */
    if (i + 8 < n) {
      graphPrefetch(&pCsr->aOutOff[aVert[i + 8]], 0);
      graphPrefetch(&pCsr->aInOff[aVert[i + 8]], 0);
    }
    if (i + 3 < n) {
      graphPrefetch(&pCsr->aOut[pCsr->aOutOff[aVert[i + 3]]], 0);
      graphPrefetch(&pCsr->aIn[pCsr->aInOff[aVert[i + 3]]], 0);
    }
    v = aVert[i];
    for (iPass = 0; iPass < 2; iPass++) {
      const sqlite3_int64 *aO = iPass ? pCsr->aInOff : pCsr->aOutOff;
      const int *aE = iPass ? pCsr->aIn : pCsr->aOut;
      for (k = aO[v]; k < aO[v + 1]; k++) {
        u = aE[k];
        /* Stamps v + n: the degree pass left v's own. */
        if (u != v && aMark[u] != v + n) {
          aMark[u] = v + n;
          gcCoreMove(u, v, aDeg, aPos, aVert, aBin);
        }
      }
    }
  }
  for (v = 0; v < n; v++) aCore[v] = aDeg[v];
  rc = SQLITE_OK;
core_done:
  sqlite3_free(aDeg);
  sqlite3_free(aVert);
  sqlite3_free(aPos);
  sqlite3_free(aMark);
  sqlite3_free(aBin);
  return rc;
}

/**************************************************************************
** Local clustering: triangles through sorted forward lists.
*/

/*
** networkx's clustering of each node of the undirected simple graph pAdj
** into aOut: 2T / (d (d - 1)), T the triangles through the node (weighted:
** the sum over them of the cube root of the product of the three edges'
** weights, each divided by the largest weight of the graph, rMaxW).
** Nodes are ranked by degree; each edge points to its higher-ranked end;
** a triangle is found once, from its lowest-ranked node, where two
** forward lists meet (each holds at most sqrt(2m) entries). aFill is
** reused: first the fill points of the lists, then where each stamped
** node sits in the current list.
*/
static int gcClustering(sqlite3_stmt *pPing, const GcAdj *pAdj, double rMaxW, double *aOut) {
  int n = pAdj->n, v, i, rc = SQLITE_OK;
  int *aRank = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)n + 1));
  int *aByRank = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)n + 1));
  int *aCnt = NULL;
  sqlite3_int64 *aFOff = (sqlite3_int64 *)sqlite3_malloc64(sizeof(sqlite3_int64) * ((sqlite3_uint64)n + 2));
  sqlite3_int64 *aFill = (sqlite3_int64 *)sqlite3_malloc64(sizeof(sqlite3_int64) * ((sqlite3_uint64)n + 2));
  sqlite3_int64 m = pAdj->aOff[n], k;
  int *aFwd = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)m / 2 + 1));
  double *aFW = pAdj->aW ? (double *)sqlite3_malloc64(sizeof(double) * ((sqlite3_uint64)m / 2 + 1)) : NULL;
  double *aTri = (double *)sqlite3_malloc64(sizeof(double) * ((sqlite3_uint64)n + 1));
  int *aStamp = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)n + 1));
  int md = 0;
  if (!aRank || !aByRank || !aFOff || !aFill || !aFwd || (pAdj->aW && !aFW) || !aTri || !aStamp) {
    rc = SQLITE_NOMEM;
    goto clustering_done;
  }
  /* Rank by degree, then node number: a counting sort. */
  for (v = 0; v < n; v++) {
    int d = (int)(pAdj->aOff[v + 1] - pAdj->aOff[v]);
    if (d > md) md = d;
  }
  aCnt = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)md + 2));
  if (aCnt == NULL) {
    rc = SQLITE_NOMEM;
    goto clustering_done;
  }
  memset(aCnt, 0, sizeof(int) * ((size_t)md + 2));
  for (v = 0; v < n; v++) aCnt[pAdj->aOff[v + 1] - pAdj->aOff[v] + 1]++;
  for (i = 0; i < md; i++) aCnt[i + 1] += aCnt[i];
  for (v = 0; v < n; v++) {
    int r = aCnt[pAdj->aOff[v + 1] - pAdj->aOff[v]]++;
    aRank[v] = r;
    aByRank[r] = v;
  }
  /* Forward lists by rank, of higher ranks, ascending: dealt rank by rank. */
  memset(aFOff, 0, sizeof(sqlite3_int64) * ((size_t)n + 2));
  for (v = 0; v < n; v++) {
    for (k = pAdj->aOff[v]; k < pAdj->aOff[v + 1]; k++) {
      if (aRank[pAdj->aNbr[k]] > aRank[v]) aFOff[aRank[v] + 1]++;
    }
  }
  for (i = 0; i < n; i++) aFOff[i + 1] += aFOff[i];
  memcpy(aFill, aFOff, sizeof(sqlite3_int64) * ((size_t)n + 1));
  for (i = 0; i < n; i++) {
    int w = aByRank[i];
    for (k = pAdj->aOff[w]; k < pAdj->aOff[w + 1]; k++) {
      int r = aRank[pAdj->aNbr[k]];
      if (r < i) {
        sqlite3_int64 j = aFill[r]++;
        aFwd[j] = i;
        if (aFW) aFW[j] = pAdj->aW[k] / rMaxW;
      }
    }
  }
  /* Each triangle i < r < x (ranks) once: x in the forward lists of both
  ** i and r. i's forward neighbours are stamped (aStamp[x] == i, at
  ** aFill[x] in i's list), then r's forward lists are scanned against the
  ** stamps: one load per candidate, no branchy merge. */
  for (v = 0; v < n; v++) {
    aTri[v] = 0;
    aStamp[v] = -1;
  }
  for (i = 0; i < n && rc == SQLITE_OK; i++) {
    for (k = aFOff[i]; k < aFOff[i + 1]; k++) {
      aStamp[aFwd[k]] = i;
      if (aFW) aFill[aFwd[k]] = k;
    }
    for (k = aFOff[i]; k < aFOff[i + 1]; k++) {
      int r = aFwd[k];
      sqlite3_int64 kk;
      for (kk = aFOff[r]; kk < aFOff[r + 1]; kk++) {
        int x = aFwd[kk];
        if (aStamp[x] == i) {
          double t = aFW ? cbrt(aFW[k] * aFW[kk] * aFW[aFill[x]]) : 1.0;
          aTri[aByRank[i]] += t;
          aTri[aByRank[r]] += t;
          aTri[aByRank[x]] += t;
        }
      }
    }
    if ((i & (4096 * GC_PING_EVERY - 1)) == 4096 * GC_PING_EVERY - 1) rc = graphBatchPing(pPing);
  }
  for (v = 0; v < n; v++) {
    double d = (double)(pAdj->aOff[v + 1] - pAdj->aOff[v]);
    aOut[v] = aTri[v] == 0 ? 0.0 : 2 * aTri[v] / (d * (d - 1));
  }
clustering_done:
  sqlite3_free(aRank);
  sqlite3_free(aByRank);
  sqlite3_free(aCnt);
  sqlite3_free(aFOff);
  sqlite3_free(aFill);
  sqlite3_free(aFwd);
  sqlite3_free(aFW);
  sqlite3_free(aTri);
  sqlite3_free(aStamp);
  return rc;
}

/**************************************************************************
** Louvain (Blondel et al. 2008), networkx's louvain_communities: gains as
** networkx computes them, nodes visited in a seeded shuffle per level.
*/

/* One level's graph: CSR with weights, self-loop weights apart, weighted degrees. */
typedef struct GcLevel GcLevel;
struct GcLevel {
  int n;               /* Nodes */
  sqlite3_int64 *aOff; /* Offsets into aNbr */
  int *aNbr;           /* Neighbours (no self) */
  double *aW;          /* Their weights */
  double *aLoop;       /* Self-loop weight (an undirected loop of weight w adds 2w to the degree) */
  double *aDeg;        /* Weighted degree */
};

static void gcLevelFree(GcLevel *p) {
  sqlite3_free(p->aOff);
  sqlite3_free(p->aNbr);
  sqlite3_free(p->aW);
  sqlite3_free(p->aLoop);
  sqlite3_free(p->aDeg);
  memset(p, 0, sizeof(*p));
}

/* Modularity of partition aCom (community numbers below n) of level p, networkx's formula. */
static double gcModularity(const GcLevel *p, const int *aCom, double rM, double rRes, double *aTmpIn,
                           double *aTmpTot) {
  int v;
  double q = 0;
  sqlite3_int64 k;
  for (v = 0; v < p->n; v++) aTmpIn[v] = aTmpTot[v] = 0;
  for (v = 0; v < p->n; v++) {
    aTmpTot[aCom[v]] += p->aDeg[v];
    aTmpIn[aCom[v]] += p->aLoop[v];
    for (k = p->aOff[v]; k < p->aOff[v + 1]; k++) {
      /* Each undirected edge is listed from both ends: half each time. */
      if (aCom[p->aNbr[k]] == aCom[v]) aTmpIn[aCom[v]] += p->aW[k] / 2;
    }
  }
  for (v = 0; v < p->n; v++) {
    if (aTmpTot[v] != 0 || aTmpIn[v] != 0) {
      q += aTmpIn[v] / rM - rRes * aTmpTot[v] * aTmpTot[v] / (4 * rM * rM);
    }
  }
  return q;
}

/*
** Local moving on level p: aCom[v] in, out (community numbers < n). Returns
** whether any node moved; *pbErr on an interrupt (rc in *pRc).
*/
static int gcLouvainMove(sqlite3_stmt *pPing, const GcLevel *p, GcRandom *pRnd, double rM, double rRes,
                         int *aCom, double *aTot, double *aW2c, int *aTouched, int *aOrder, int *pRc) {
  int n = p->n, v, i, bImproved = 0, nMoves = 1;
  for (v = 0; v < n; v++) {
    aOrder[v] = v;
    aTot[v] = 0;
    aW2c[v] = 0;
  }
  for (v = 0; v < n; v++) aTot[aCom[v]] += p->aDeg[v];
  gcRandomShuffle(pRnd, aOrder, n);
  while (nMoves > 0 && *pRc == SQLITE_OK) {
    nMoves = 0;
    for (i = 0; i < n; i++) {
      int u = aOrder[i], nT = 0, iBest = aCom[u], j;
      double rDeg = p->aDeg[u], rBest = 0, rRemove;
      sqlite3_int64 k;
      if ((i & (4096 * GC_PING_EVERY - 1)) == 4096 * GC_PING_EVERY - 1 &&
          (*pRc = graphBatchPing(pPing)) != SQLITE_OK) {
        return bImproved;
      }
      /* Weights to each neighbouring community (the node's own listed first). */
      aTouched[nT++] = aCom[u];
      for (k = p->aOff[u]; k < p->aOff[u + 1]; k++) {
        int c = aCom[p->aNbr[k]];
        if (aW2c[c] == 0 && c != aCom[u]) aTouched[nT++] = c;
        aW2c[c] += p->aW[k];
      }
      aTot[iBest] -= rDeg;
      rRemove = -aW2c[iBest] / rM + rRes * (aTot[iBest] * rDeg) / (2 * rM * rM);
      for (j = 0; j < nT; j++) {
        int c = aTouched[j];
        double rGain;
        if (aW2c[c] == 0 && c != aCom[u]) continue;
        if (j > 0 || aW2c[c] != 0) {
          rGain = rRemove + aW2c[c] / rM - rRes * (aTot[c] * rDeg) / (2 * rM * rM);
          if (rGain > rBest) {
            rBest = rGain;
            iBest = c;
          }
        }
      }
      for (j = 0; j < nT; j++) aW2c[aTouched[j]] = 0;
      aTot[iBest] += rDeg;
      if (iBest != aCom[u]) {
        aCom[u] = iBest;
        bImproved = 1;
        nMoves++;
      }
    }
  }
  return bImproved;
}

/*
** The level whose nodes are the communities of p (aCom renumbered densely
** to 0..nCom-1 first): edge weights between communities summed, those
** inside one a self-loop.
*/
static int gcLevelAggregate(const GcLevel *p, const int *aCom, int nCom, GcLevel *pNew) {
  int v, c, rc = SQLITE_OK;
  sqlite3_int64 k, nOut = 0;
  int *aMemOff = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)nCom + 2));
  int *aMem = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)p->n + 1));
  double *aAcc = (double *)sqlite3_malloc64(sizeof(double) * ((sqlite3_uint64)nCom + 1));
  int *aTouched = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)nCom + 1));
  memset(pNew, 0, sizeof(*pNew));
  pNew->n = nCom;
  pNew->aOff = (sqlite3_int64 *)sqlite3_malloc64(sizeof(sqlite3_int64) * ((sqlite3_uint64)nCom + 1));
  /* At most one entry per edge of p. */
  pNew->aNbr = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)p->aOff[p->n] + 1));
  pNew->aW = (double *)sqlite3_malloc64(sizeof(double) * ((sqlite3_uint64)p->aOff[p->n] + 1));
  pNew->aLoop = (double *)sqlite3_malloc64(sizeof(double) * ((sqlite3_uint64)nCom + 1));
  pNew->aDeg = (double *)sqlite3_malloc64(sizeof(double) * ((sqlite3_uint64)nCom + 1));
  if (!aMemOff || !aMem || !aAcc || !aTouched || !pNew->aOff || !pNew->aNbr || !pNew->aW || !pNew->aLoop ||
      !pNew->aDeg) {
    rc = SQLITE_NOMEM;
    goto aggregate_done;
  }
  memset(aMemOff, 0, sizeof(int) * ((size_t)nCom + 2));
  for (v = 0; v < p->n; v++) aMemOff[aCom[v] + 1]++;
  for (c = 0; c < nCom; c++) aMemOff[c + 1] += aMemOff[c];
  for (v = 0; v < p->n; v++) aMem[aMemOff[aCom[v]]++] = v;
  for (c = nCom; c > 0; c--) aMemOff[c] = aMemOff[c - 1];
  aMemOff[0] = 0;
  for (c = 0; c < nCom; c++) {
    aAcc[c] = 0;
    pNew->aLoop[c] = 0;
    pNew->aDeg[c] = 0;
  }
  for (c = 0; c < nCom; c++) {
    int i, nT = 0;
    pNew->aOff[c] = nOut;
    for (i = aMemOff[c]; i < aMemOff[c + 1]; i++) {
      v = aMem[i];
      pNew->aLoop[c] += p->aLoop[v];
      pNew->aDeg[c] += p->aDeg[v];
      for (k = p->aOff[v]; k < p->aOff[v + 1]; k++) {
        int d = aCom[p->aNbr[k]];
        if (d == c) {
          /* Listed from both ends: half a loop each time. */
          pNew->aLoop[c] += p->aW[k] / 2;
          continue;
        }
        if (aAcc[d] == 0) aTouched[nT++] = d;
        aAcc[d] += p->aW[k];
      }
    }
    for (i = 0; i < nT; i++) {
      pNew->aNbr[nOut] = aTouched[i];
      pNew->aW[nOut++] = aAcc[aTouched[i]];
      aAcc[aTouched[i]] = 0;
    }
  }
  pNew->aOff[nCom] = nOut;
aggregate_done:
  sqlite3_free(aMemOff);
  sqlite3_free(aMem);
  sqlite3_free(aAcc);
  sqlite3_free(aTouched);
  if (rc != SQLITE_OK) gcLevelFree(pNew);
  return rc;
}

/*
** Louvain communities of the undirected graph pAdj (weights summed over
** duplicate edges, self-loops in aLoop) into aOut (a community number per
** node, 0..). networkx's louvain_partitions(): levels until one gains no
** more than rThreshold in modularity.
*/
static int gcLouvain(sqlite3_stmt *pPing, const GcAdj *pAdj, double rRes, sqlite3_int64 iSeed,
                     double rThreshold, int *aOut) {
  int n = pAdj->n, v, rc = SQLITE_OK;
  GcLevel lv, next;
  GcRandom rnd;
  double rM = 0, rMod;
  int *aCom = NULL, *aTouched = NULL, *aOrder = NULL, *aMap = NULL;
  double *aTot = NULL, *aW2c = NULL;
  sqlite3_int64 k;
  memset(&lv, 0, sizeof(lv));
  memset(&next, 0, sizeof(next));
  gcRandomSeed(&rnd, (sqlite3_uint64)iSeed);
  for (v = 0; v < n; v++) aOut[v] = v;
  lv.n = n;
  lv.aOff = pAdj->aOff;
  lv.aNbr = pAdj->aNbr;
  lv.aW = pAdj->aW;
  lv.aLoop = pAdj->aLoop;
  lv.aDeg = (double *)sqlite3_malloc64(sizeof(double) * ((sqlite3_uint64)n + 1));
  aCom = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)n + 1));
  aTouched = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)n + 1));
  aOrder = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)n + 1));
  aMap = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)n + 1));
  aTot = (double *)sqlite3_malloc64(sizeof(double) * ((sqlite3_uint64)n + 1));
  aW2c = (double *)sqlite3_malloc64(sizeof(double) * ((sqlite3_uint64)n + 1));
  if (!lv.aDeg || !aCom || !aTouched || !aOrder || !aMap || !aTot || !aW2c) {
    rc = SQLITE_NOMEM;
    goto louvain_done;
  }
  for (v = 0; v < n; v++) {
    double d = 2 * lv.aLoop[v];
    for (k = lv.aOff[v]; k < lv.aOff[v + 1]; k++) d += lv.aW[k];
    lv.aDeg[v] = d;
    rM += d;
  }
  rM /= 2;
  if (rM == 0) goto louvain_done; /* No edges: every node alone */
  for (v = 0; v < n; v++) aCom[v] = v;
  rMod = gcModularity(&lv, aCom, rM, rRes, aTot, aW2c);
  for (;;) {
    int nCom = 0, bMoved;
    double rNew;
    for (v = 0; v < lv.n; v++) aCom[v] = v;
    bMoved = gcLouvainMove(pPing, &lv, &rnd, rM, rRes, aCom, aTot, aW2c, aTouched, aOrder, &rc);
    if (rc != SQLITE_OK) break;
    /* Renumber the communities densely, in node order. */
    for (v = 0; v < lv.n; v++) aMap[v] = -1;
    for (v = 0; v < lv.n; v++) {
      if (aMap[aCom[v]] < 0) aMap[aCom[v]] = nCom++;
      aCom[v] = aMap[aCom[v]];
    }
    /* The original nodes follow their level node. */
    for (v = 0; v < n; v++) aOut[v] = aCom[aOut[v]];
    rNew = gcModularity(&lv, aCom, rM, rRes, aTot, aW2c);
    if (!bMoved || rNew - rMod <= rThreshold) break;
    rMod = rNew;
    rc = gcLevelAggregate(&lv, aCom, nCom, &next);
    if (rc != SQLITE_OK) break;
    if (lv.aOff != pAdj->aOff) {
      gcLevelFree(&lv);
    } else {
      sqlite3_free(lv.aDeg);
    }
    lv = next;
    memset(&next, 0, sizeof(next));
  }
louvain_done:
  if (lv.aOff != pAdj->aOff) {
    gcLevelFree(&lv);
  } else {
    sqlite3_free(lv.aDeg);
  }
  sqlite3_free(aCom);
  sqlite3_free(aTouched);
  sqlite3_free(aOrder);
  sqlite3_free(aMap);
  sqlite3_free(aTot);
  sqlite3_free(aW2c);
  return rc;
}

/**************************************************************************
** The module: one per job, the arguments as hidden columns.
*/

#define GC_BETWEENNESS 0
#define GC_CLOSENESS 1
#define GC_HITS 2
#define GC_CORE 3
#define GC_CLUSTERING 4
#define GC_LOUVAIN 5

static int gcRunJob(GraphJobCursor *pCur, GraphSource *pSrc, int eDir, char **pzErr);

/* The inputs every job starts with and ends with. */
#define GC_SRC \
  {"source", NOSQL_OPT_TEXT}, {"from_col", NOSQL_OPT_TEXT}, { "to_col", NOSQL_OPT_TEXT }
#define GC_TAIL \
  {"layout", NOSQL_OPT_TEXT}, {"direction", NOSQL_OPT_TEXT}, { NULL, 0 }

/* The jobs: tables of ext/graph_batch.c's glue (GraphJob), which every whole-graph job shares. */
static const GraphJob aGcJob[] = {
    {GC_BETWEENNESS,
     "graph_betweenness",
     "betweenness REAL",
     1,
     3,
     {GC_SRC,
      {"weight_col", NOSQL_OPT_TEXT},
      {"normalized", NOSQL_OPT_BOOL},
      {"endpoints", NOSQL_OPT_BOOL},
      {"samples", NOSQL_OPT_INT},
      {"seed", NOSQL_OPT_INT},
      GC_TAIL},
     "graph_betweenness(source, from_col, to_col[, weight_col[, normalized[, endpoints[, samples[, seed[, "
     "layout[, direction]]]]]]])",
     gcRunJob},
    {GC_CLOSENESS,
     "graph_closeness",
     "closeness REAL",
     1,
     3,
     {GC_SRC, {"weight_col", NOSQL_OPT_TEXT}, {"wf_improved", NOSQL_OPT_BOOL}, GC_TAIL},
     "graph_closeness(source, from_col, to_col[, weight_col[, wf_improved[, layout[, direction]]]])",
     gcRunJob},
    {GC_HITS,
     "graph_hits",
     "hub REAL, authority REAL",
     2,
     3,
     {GC_SRC, {"weight_col", NOSQL_OPT_TEXT}, {"max_iter", NOSQL_OPT_INT}, {"tol", NOSQL_OPT_NUM}, GC_TAIL},
     "graph_hits(source, from_col, to_col[, weight_col[, max_iter[, tol[, layout[, direction]]]]])",
     gcRunJob},
    {GC_CORE,
     "graph_core_number",
     "core INTEGER",
     1,
     3,
     {GC_SRC, GC_TAIL},
     "graph_core_number(source, from_col, to_col[, layout[, direction]])",
     gcRunJob},
    {GC_CLUSTERING,
     "graph_clustering",
     "clustering REAL",
     1,
     3,
     {GC_SRC, {"weight_col", NOSQL_OPT_TEXT}, GC_TAIL},
     "graph_clustering(source, from_col, to_col[, weight_col[, layout[, direction]]])",
     gcRunJob},
    {GC_LOUVAIN,
     "graph_louvain",
     "community",
     1,
     3,
     {GC_SRC,
      {"weight_col", NOSQL_OPT_TEXT},
      {"resolution", NOSQL_OPT_NUM},
      {"seed", NOSQL_OPT_INT},
      {"threshold", NOSQL_OPT_NUM},
      GC_TAIL},
     "graph_louvain(source, from_col, to_col[, weight_col[, resolution[, seed[, threshold[, layout[, "
     "direction]]]]]])",
     gcRunJob},
};

/* Set the error "<job>: <zFmt with the quoted value>"; zFmt takes the job, zArg and the value, in order. */
static int gcError(GraphJobCursor *pCur, const char *zFmt, const char *zArg, sqlite3_value *pVal) {
  char *zQ = pVal ? nosqlValueQuote(pVal) : NULL;
  nosqlVtabError(pCur->base.pVtab, zFmt, pCur->pJob->zName, zArg, zQ ? zQ : "?");
  sqlite3_free(zQ);
  return SQLITE_ERROR;
}

/* Input zName as a number (text that reads as one is that number): *pr, *pbInt; 0 when it is no number. */
static int gcNumber(GraphJobCursor *pCur, sqlite3_value *pVal, double *pr, int *pbInt, int *pRc) {
  sqlite3_value *pNum = NULL;
  int eType;
  *pRc = nosqlValueAffinity(pCur->db, pVal, 'n', &pNum);
  if (*pRc != SQLITE_OK) return 0;
  eType = sqlite3_value_type(pNum);
  *pr = sqlite3_value_double(pNum);
  *pbInt = eType == SQLITE_INTEGER || (eType == SQLITE_FLOAT && *pr == floor(*pr) && fabs(*pr) < 9e15);
  sqlite3_value_free(pNum);
  return (eType == SQLITE_INTEGER || eType == SQLITE_FLOAT) && !isnan(*pr);
}

/* An integer input in [iLo, iHi], or iDefault when not given. */
static int gcArgInt(GraphJobCursor *pCur, const char *zName, sqlite3_int64 iDefault, sqlite3_int64 iLo,
                    sqlite3_int64 iHi, sqlite3_int64 *pi) {
  sqlite3_value *pVal = graphJobInput(pCur, zName);
  double r;
  int bInt, rc = SQLITE_OK;
  *pi = iDefault;
  if (pVal == NULL) return SQLITE_OK;
  if (!gcNumber(pCur, pVal, &r, &bInt, &rc) || !bInt || r < (double)iLo || r > (double)iHi) {
    if (rc != SQLITE_OK) return rc;
    if (bInt && r > (double)iHi) {
      char *zQ = nosqlValueQuote(pVal);
      nosqlVtabError(pCur->base.pVtab, "%s: %s must be an integer of at most %lld, not %s", pCur->pJob->zName,
                     zName, iHi, zQ ? zQ : "?");
      sqlite3_free(zQ);
      return SQLITE_ERROR;
    }
    return gcError(pCur,
                   iLo == 0 ? "%s: %s must be an integer of 0 or more, not %s"
                            : "%s: %s must be an integer of 1 or more, not %s",
                   zName, pVal);
  }
  *pi = (sqlite3_int64)r;
  return SQLITE_OK;
}

/* A number input of 0 or more (bPositive: more than 0), or rDefault when not given. */
static int gcArgReal(GraphJobCursor *pCur, const char *zName, double rDefault, int bPositive, double *pr) {
  sqlite3_value *pVal = graphJobInput(pCur, zName);
  int bInt, rc = SQLITE_OK;
  *pr = rDefault;
  if (pVal == NULL) return SQLITE_OK;
  if (!gcNumber(pCur, pVal, pr, &bInt, &rc) || *pr < 0 || (bPositive && *pr == 0) || isinf(*pr)) {
    if (rc != SQLITE_OK) return rc;
    return gcError(pCur,
                   bPositive ? "%s: %s must be a number more than 0, not %s"
                             : "%s: %s must be a number of 0 or more, not %s",
                   zName, pVal);
  }
  return SQLITE_OK;
}

/* A true/false input: 1, 0 (or text '1', '0', 'true', 'false'), or bDefault when not given. */
static int gcArgBool(GraphJobCursor *pCur, const char *zName, int bDefault, int *pb) {
  sqlite3_value *pVal = graphJobInput(pCur, zName);
  double r;
  int bInt, rc = SQLITE_OK;
  *pb = bDefault;
  if (pVal == NULL) return SQLITE_OK;
  if (sqlite3_value_type(pVal) == SQLITE_TEXT) {
    const char *z = (const char *)sqlite3_value_text(pVal);
    if (z && sqlite3_stricmp(z, "true") == 0) {
      *pb = 1;
      return SQLITE_OK;
    }
    if (z && sqlite3_stricmp(z, "false") == 0) {
      *pb = 0;
      return SQLITE_OK;
    }
  }
  if (!gcNumber(pCur, pVal, &r, &bInt, &rc) || (r != 0 && r != 1)) {
    if (rc != SQLITE_OK) return rc;
    return gcError(pCur, "%s: %s must be true or false (1 or 0), not %s", zName, pVal);
  }
  *pb = r == 1;
  return SQLITE_OK;
}

/* Louvain's and the components' label: each community's smallest node, in SQLite's order. */
static int gcLabelBySmallest(const GraphCsr *pCsr, const int *aCom, sqlite3_int64 *aOut) {
  int n = pCsr->vals.n, v;
  int *aMin = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)n + 1));
  if (aMin == NULL) return SQLITE_NOMEM;
  for (v = 0; v < n; v++) aMin[v] = -1;
  for (v = 0; v < n; v++) {
    int c = aCom[v];
    if (aMin[c] < 0 || graphValueCmp((const GraphValue *)graphSetAt(&pCsr->vals, v),
                                     (const GraphValue *)graphSetAt(&pCsr->vals, aMin[c])) < 0) {
      aMin[c] = v;
    }
  }
  for (v = 0; v < n; v++) aOut[v] = aMin[aCom[v]];
  sqlite3_free(aMin);
  return SQLITE_OK;
}

/* Run the job on the cursor's graph, the options read; fill the per-node results. */
static int gcRun(GraphJobCursor *pCur, int eDir) {
  const GraphJob *pJob = pCur->pJob;
  sqlite3 *db = pCur->db;
  const GraphCsr *pCsr = pCur->pCsr;
  int n = pCsr->vals.n, rc;
  sqlite3_stmt *pPing = NULL;
  GcAdj adj;
  memset(&adj, 0, sizeof(adj));
  rc = sqlite3_prepare_v2(db, graphBatchPingSql(), -1, &pPing, 0);
  if (rc != SQLITE_OK) return rc;
  pCur->aReal[0] = (double *)sqlite3_malloc64(sizeof(double) * ((sqlite3_uint64)n + 1));
  if (pCur->aReal[0] == NULL) rc = SQLITE_NOMEM;
  switch (pJob->eJob) {
    case GC_BETWEENNESS: {
      GcBetweenArgs a;
      int bNorm = 1, bEnd = 0;
      sqlite3_int64 nSample = 0, iSeed = 0;
      if (rc == SQLITE_OK) rc = gcArgBool(pCur, "normalized", 1, &bNorm);
      if (rc == SQLITE_OK) rc = gcArgBool(pCur, "endpoints", 0, &bEnd);
      if (rc == SQLITE_OK)
        rc = gcArgInt(pCur, "samples", 0, 1, (sqlite3_int64)0x7fffffffffffffffLL, &nSample);
      if (rc == SQLITE_OK) rc = gcArgInt(pCur, "seed", 0, 0, (sqlite3_int64)0x7fffffffffffffffLL, &iSeed);
      if (rc == SQLITE_OK && nSample > n) {
        nosqlVtabError(pCur->base.pVtab, "%s: samples %lld is more than the %d nodes of the graph",
                       pJob->zName, nSample, n);
        rc = SQLITE_ERROR;
      }
      memset(&a, 0, sizeof(a));
      a.bNormalized = bNorm;
      a.bEndpoints = bEnd;
      a.bDirected = eDir != GRAPH_DIR_BOTH;
      a.nSample = (int)nSample;
      a.iSeed = iSeed;
      if (rc == SQLITE_OK) rc = gcAdjBuild(pCsr, eDir, GC_MERGE_MIN, GC_LOOPS_DROP, 1, &adj);
      if (rc == SQLITE_OK) rc = gcBetweenness(pPing, &adj, &a, pCur->aReal[0]);
      break;
    }
    case GC_CLOSENESS: {
      int bWf = 1;
      /* Inward distances: search the reversed edges. */
      int eRev = eDir == GRAPH_DIR_OUT ? GRAPH_DIR_IN : eDir == GRAPH_DIR_IN ? GRAPH_DIR_OUT : GRAPH_DIR_BOTH;
      if (rc == SQLITE_OK) rc = gcArgBool(pCur, "wf_improved", 1, &bWf);
      if (rc == SQLITE_OK) rc = gcAdjBuild(pCsr, eRev, GC_MERGE_MIN, GC_LOOPS_DROP, 1, &adj);
      if (rc == SQLITE_OK) rc = gcCloseness(pPing, &adj, bWf, pCur->aReal[0]);
      break;
    }
    case GC_HITS: {
      sqlite3_int64 nMaxIter = 100;
      double rTol = 1e-8;
      pCur->aReal[1] = (double *)sqlite3_malloc64(sizeof(double) * ((sqlite3_uint64)n + 1));
      if (pCur->aReal[1] == NULL) rc = SQLITE_NOMEM;
      if (rc == SQLITE_OK) rc = gcArgInt(pCur, "max_iter", 100, 1, 1000000000, &nMaxIter);
      if (rc == SQLITE_OK) rc = gcArgReal(pCur, "tol", 1e-8, 0, &rTol);
      /* Self-loops are edges of the adjacency matrix: kept in the lists. */
      if (rc == SQLITE_OK) rc = gcAdjBuild(pCsr, eDir, GC_MERGE_SUM, GC_LOOPS_KEEP, 1, &adj);
      if (rc == SQLITE_OK) rc = gcHits(pPing, &adj, (int)nMaxIter, rTol, pCur->aReal[0], pCur->aReal[1]);
      if (rc == SQLITE_DONE) {
        nosqlVtabError(pCur->base.pVtab,
                       "%s: power iteration failed to converge within %lld iterations (max_iter; tol %g)",
                       pJob->zName, nMaxIter, rTol);
        rc = SQLITE_ERROR;
      }
      break;
    }
    case GC_CORE:
      pCur->aInt = (sqlite3_int64 *)sqlite3_malloc64(sizeof(sqlite3_int64) * ((sqlite3_uint64)n + 1));
      if (pCur->aInt == NULL) rc = SQLITE_NOMEM;
      pCur->eVal = GRAPH_VAL_INT;
      /* Self-loops ignored: networkx refuses them; this is its answer without them. */
      if (rc == SQLITE_OK) rc = gcCoreNumber(pCsr, pCur->aInt);
      break;
    case GC_CLUSTERING: {
      double rMaxW = 1;
      sqlite3_int64 k;
      if (rc == SQLITE_OK) rc = gcAdjBuild(pCsr, GRAPH_DIR_BOTH, GC_MERGE_MAX, GC_LOOPS_DROP, 1, &adj);
      if (rc == SQLITE_OK && pCsr->aOutW) {
        /* networkx: the largest weight of any edge, self-loops included. */
        rMaxW = 0;
        for (k = 0; k < pCsr->nEdge; k++) rMaxW = pCsr->aOutW[k] > rMaxW ? pCsr->aOutW[k] : rMaxW;
      }
      if (rc == SQLITE_OK) rc = gcClustering(pPing, &adj, rMaxW > 0 ? rMaxW : 1, pCur->aReal[0]);
      break;
    }
    default: { /* GC_LOUVAIN */
      double rRes = 1, rThreshold = 1e-7;
      sqlite3_int64 iSeed = 0;
      int *aCom = (int *)sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)n + 1));
      pCur->aInt = (sqlite3_int64 *)sqlite3_malloc64(sizeof(sqlite3_int64) * ((sqlite3_uint64)n + 1));
      if (aCom == NULL || pCur->aInt == NULL) rc = SQLITE_NOMEM;
      if (rc == SQLITE_OK) rc = gcArgReal(pCur, "resolution", 1, 0, &rRes);
      if (rc == SQLITE_OK) rc = gcArgInt(pCur, "seed", 0, 0, (sqlite3_int64)0x7fffffffffffffffLL, &iSeed);
      if (rc == SQLITE_OK) rc = gcArgReal(pCur, "threshold", 1e-7, 0, &rThreshold);
      if (rc == SQLITE_OK) rc = gcAdjBuild(pCsr, GRAPH_DIR_BOTH, GC_MERGE_SUM, GC_LOOPS_APART, 1, &adj);
      if (rc == SQLITE_OK) rc = gcLouvain(pPing, &adj, rRes, iSeed, rThreshold, aCom);
      if (rc == SQLITE_OK) rc = gcLabelBySmallest(pCsr, aCom, pCur->aInt);
      pCur->eVal = GRAPH_VAL_NODE;
      sqlite3_free(aCom);
      break;
    }
  }
  gcAdjFree(&adj);
  sqlite3_finalize(pPing);
  if (rc == SQLITE_INTERRUPT) nosqlVtabError(pCur->base.pVtab, "interrupted");
  if (rc == SQLITE_OK) pCur->nRow = n;
  return rc;
}

/* The xRun of this file's jobs (GraphJob): the load, then the job. */
static int gcRunJob(GraphJobCursor *pCur, GraphSource *pSrc, int eDir, char **pzErr) {
  int rc = graphSourceLoad(pCur->db, pSrc, GC_MAX_EDGE, 1, pCur->pJob->zName, &pCur->pCsr, pzErr);
  if (rc == SQLITE_OK) rc = gcRun(pCur, eDir);
  return rc;
}

/* The feature "graph centrality": one module per job, through ext/graph_batch.c's glue. */
int graphCentralityRegister(sqlite3 *db) {
  return graphJobRegister(db, aGcJob, (int)(sizeof(aGcJob) / sizeof(aGcJob[0])));
}
