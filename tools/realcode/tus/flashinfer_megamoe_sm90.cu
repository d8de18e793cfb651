// Driver (our own): FlashInfer's SM90 NVFP4 MegaMoE
// (flashinfer/megamoe/sm90_nvfp4_mega_moe_fused.cuh), one persistent
// megakernel that fuses the cross-rank token dispatch over an NVLink
// symmetric buffer, both expert GEMMs (TMA + mbarrier pipelines, warp
// specialization), SwiGLU and the combine, with grid-wide and cross-rank
// barriers between the phases. The configuration is the one FlashInfer's
// planner (flashinfer/megamoe/heuristics.py, select_fused_plan) picks for an
// H200 (132 SMs), 8 ranks, 256 experts, top-8, hidden 7168, intermediate 2048,
// 128 tokens per rank; the constants below are its output, written out here
// as the generated config header would. Built with -I <flashinfer>/data/include
// and the CUTLASS FlashInfer vendors.
#define MEGAMOE_NUM_SMS 132
#define FI_MEGAMOE_NVLINK_BARRIER_TRAP_ONLY_TIMEOUT 1

#include <flashinfer/megamoe/sm90_nvfp4_mega_moe_fused.cuh>

namespace fenceline_unit {
namespace mm = ::flashinfer::megamoe;
constexpr uint32_t kNumMaxTokensPerRank = 128, kNumExperts = 256, kNumTopk = 8, kHidden = 7168,
                   kIntermediateHidden = 2048, kNumExpertsPerWave = 32, kBlockM = 64, kBlockN = 256,
                   kNumMaxPoolTokens = 14592, kNumPaddedSFPoolTokens = 233472, kNumStages = 3;
// plan: swap_ab false, rs_swap_ab false, single_active_dispatch_warp false, mode-2 row decoder,
// interleaved scheduler, pull dispatch (push false), clean barrier (no_clean_barrier false).
void* const kKernel = reinterpret_cast<void*>(&mm::sm90_nvfp4_mega_moe_fused_impl<
    kNumMaxTokensPerRank, kNumExperts, kNumTopk, kHidden, kIntermediateHidden, kNumExpertsPerWave,
    kBlockM, kBlockN, kNumMaxPoolTokens, kNumPaddedSFPoolTokens, kNumStages, /*clamp*/ 10.0f,
    /*fast math*/ false, /*swap_ab*/ false, /*rs_swap_ab*/ false, /*single dispatch warp*/ false,
    /*mode2 row decoder*/ true, /*interleaved scheduler*/ true, /*push dispatch*/ false,
    /*no clean barrier*/ false, false, false, false, false>);
}  // namespace fenceline_unit
