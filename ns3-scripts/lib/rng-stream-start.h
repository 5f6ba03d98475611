// ns-3's RngStream constructor, with the same result and a faster first call.
//
// ns-3 (3.37) places stream s, substream r of seed x at MRG32k3a's state x advanced by
// s * 2^127 + r * 2^76 steps, through the transition matrices raised to 2^n (n up to 190). It builds
// that table at the first stream with a non-zero number, each entry by n squarings from the base
// matrix: about 36,000 3x3 matrix products, 40% of the lock-step program's start. Here each entry is
// the square of the one before (380 products), in exact integer arithmetic. The state is the same
// integers, so every random number ns-3 draws is the same (test/integration/ns3-lockstep/
// rng-stream-start.test.ts compares the two constructors over many seeds, streams and substreams).
//
// This definition replaces the library's: libns3-core calls the constructor through its PLT, and a
// symbol the program defines comes first.
#ifndef CAVSIM_RNG_STREAM_START_H
#define CAVSIM_RNG_STREAM_START_H

#include "ns3/fatal-error.h"
#include "ns3/rng-stream.h"

#include <array>
#include <cstdint>

namespace cavsim
{
namespace mrg32k3a
{
using Matrix = std::array<std::array<uint64_t, 3>, 3>;

constexpr uint64_t M1 = 4294967087ULL; // 2^32 - 209
constexpr uint64_t M2 = 4294944443ULL; // 2^32 - 22853

// The two components' transition matrices, entries reduced into [0, m).
constexpr Matrix A1 = {{{0, 1, 0}, {0, 0, 1}, {M1 - 810728, 1403580, 0}}};
constexpr Matrix A2 = {{{0, 1, 0}, {0, 0, 1}, {M2 - 1370589, 0, 527612}}};

inline Matrix
Product(const Matrix& a, const Matrix& b, uint64_t m)
{
    Matrix c{};
    for (int i = 0; i < 3; ++i)
    {
        for (int j = 0; j < 3; ++j)
        {
            unsigned __int128 sum = 0;
            for (int k = 0; k < 3; ++k)
            {
                sum += static_cast<unsigned __int128>(a[i][k]) * b[k][j];
            }
            c[i][j] = static_cast<uint64_t>(sum % m);
        }
    }
    return c;
}

constexpr int POWERS = 191; // 2^0 .. 2^190: a stream (<< 127) plus 63 bits

struct PowersOfTwo
{
    Matrix a1[POWERS]; // A1^(2^n)
    Matrix a2[POWERS]; // A2^(2^n)
};

inline const PowersOfTwo&
Powers()
{
    static const PowersOfTwo powers = [] {
        PowersOfTwo p;
        p.a1[0] = A1;
        p.a2[0] = A2;
        for (int n = 1; n < POWERS; ++n)
        {
            p.a1[n] = Product(p.a1[n - 1], p.a1[n - 1], M1);
            p.a2[n] = Product(p.a2[n - 1], p.a2[n - 1], M2);
        }
        return p;
    }();
    return powers;
}

inline void
Apply(const Matrix& a, double* s, uint64_t m)
{
    uint64_t v[3];
    for (int i = 0; i < 3; ++i)
    {
        unsigned __int128 sum = 0;
        for (int k = 0; k < 3; ++k)
        {
            sum += static_cast<unsigned __int128>(a[i][k]) * static_cast<uint64_t>(s[k]);
        }
        v[i] = static_cast<uint64_t>(sum % m);
    }
    for (int i = 0; i < 3; ++i)
    {
        s[i] = static_cast<double>(v[i]);
    }
}

// The state advanced by nth * 2^by steps (powers of one matrix commute: bit order does not matter).
inline void
Advance(uint64_t nth, int by, double state[6])
{
    for (int bit = 0; bit < 64; ++bit)
    {
        if ((nth >> bit) & 1)
        {
            Apply(Powers().a1[by + bit], state, M1);
            Apply(Powers().a2[by + bit], state + 3, M2);
        }
    }
}
} // namespace mrg32k3a

// How many streams this program has placed (a check that the library's calls reach this definition).
inline uint64_t rngStreamsPlaced = 0;
} // namespace cavsim

ns3::RngStream::RngStream(uint32_t seedNumber, uint64_t stream, uint64_t substream)
{
    using namespace cavsim::mrg32k3a;
    if (seedNumber >= M1 || seedNumber >= M2 || seedNumber == 0)
    {
        NS_FATAL_ERROR("invalid Seed " << seedNumber);
    }
    for (int i = 0; i < 6; ++i)
    {
        m_currentState[i] = seedNumber;
    }
    Advance(stream, 127, m_currentState);
    Advance(substream, 76, m_currentState);
    ++cavsim::rngStreamsPlaced;
}

#endif
