// Every fenceline device primitive. Each header documents the ordering contract of each
// primitive above its declaration: what it orders, for which threads, at which scope.
#pragma once

#include "atomic.cuh"            // typed atomics and fences: Sem and Scope as template parameters
#include "mbarrier.cuh"          // shared-memory mbarrier with explicit .release/.acquire .cta
#include "bulk_copy.cuh"         // bulk and tensor copies (TMA), bulk groups
#include "grid_barrier.cuh"      // reusable phase-bit grid barrier and its checked launch
#include "multi_gpu_barrier.cuh" // epoch barrier over peer memory at .sys scope, with timeout
#include "tma_pipeline.cuh"      // full/empty stage ring with a mandatory refill fence policy
#include "tma_store.cuh"         // generic writes, then a TMA store: fences in every writer
