// Prints the first draws of ns-3 random streams for many seeds, streams and substreams, made
// directly and through ns-3's own random variables. rng-stream-start.test.ts builds it twice: with
// ns-3's RngStream constructor, and with CAVSIM_FAST_START defined, with the lock-step program's.
#ifdef CAVSIM_FAST_START
#include "../../ns3-scripts/lib/rng-stream-start.h"
#endif

#include "ns3/core-module.h"

#include <cstdint>
#include <cstdio>

using namespace ns3;

int
main()
{
    const uint32_t seeds[] = {1, 2, 12345, 4294944442u};
    const uint64_t streams[] = {0, 1, 2, 3, 7, 255, 1ULL << 20, 1ULL << 63, (1ULL << 63) + 1, (1ULL << 63) + 17, ~0ULL, 0x0123456789abcdefULL};
    const uint64_t substreams[] = {0, 1, 2, 5, 1000, ~0ULL, 0x0fedcba987654321ULL};
    for (uint32_t seed : seeds)
        for (uint64_t stream : streams)
            for (uint64_t substream : substreams)
            {
                RngStream rng(seed, stream, substream);
                std::printf("%u %llu %llu", seed, (unsigned long long)stream, (unsigned long long)substream);
                for (int i = 0; i < 3; ++i) std::printf(" %.17g", rng.RandU01());
                std::printf("\n");
            }
#ifdef CAVSIM_FAST_START
    const uint64_t direct = cavsim::rngStreamsPlaced;
#endif
    // ns-3's path: a run number is the substream, a variable's stream is assigned or automatic
    RngSeedManager::SetSeed(7);
    RngSeedManager::SetRun(3);
    Ptr<UniformRandomVariable> assigned = CreateObject<UniformRandomVariable>();
    assigned->SetStream(42);
    Ptr<ExponentialRandomVariable> automatic = CreateObject<ExponentialRandomVariable>();
    for (int i = 0; i < 3; ++i) std::printf("variables %.17g %.17g\n", assigned->GetValue(), automatic->GetValue());
#ifdef CAVSIM_FAST_START
    std::fprintf(stderr, "placed through ns-3: %llu\n", (unsigned long long)(cavsim::rngStreamsPlaced - direct));
#endif
    return 0;
}
