// What ObstacleGrid::Between remembers per pair of cells (map-obstacles.h): an open-addressing
// table, where a std::unordered_map allocated a node per pair. Its contents and its emptying are
// the map's: entries stay until it holds more than kMaxEntries, then all go at once, so the walls
// a run reports do not depend on which of the two stores it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cavsim
{

struct Obstruction
{
    int cuts = 0;        // wall runs crossed
    double metres = 0;   // length of the segment inside walls
    bool Blocked() const { return cuts > 0; }
};

class ObstructionCache
{
  public:
    static constexpr std::size_t kMaxEntries = 1000000;

    // The entry for (a, b), or null.
    const Obstruction* Find(uint64_t a, uint64_t b) const
    {
        if (m_slots.empty())
        {
            return nullptr;
        }
        for (std::size_t i = Home(a, b);; i = (i + 1) & (m_slots.size() - 1))
        {
            const Slot& s = m_slots[i];
            if (!s.used)
            {
                return nullptr;
            }
            if (s.a == a && s.b == b)
            {
                return &s.value;
            }
        }
    }

    // For a pair Find did not hold.
    void Insert(uint64_t a, uint64_t b, const Obstruction& value)
    {
        if (m_used > kMaxEntries)
        {
            Clear();
        }
        if ((m_used + 1) * 2 > m_slots.size())
        {
            Grow();
        }
        Place(a, b, value);
    }

  private:
    struct Slot
    {
        uint64_t a = 0;
        uint64_t b = 0;
        Obstruction value;
        bool used = false;
    };

    static constexpr std::size_t kFirstSlots = 4096;

    std::size_t Home(uint64_t a, uint64_t b) const
    {
        uint64_t h = a * 0x9E3779B97F4A7C15ULL ^ b; // then MurmurHash3's finaliser
        h ^= h >> 33;
        h *= 0xFF51AFD7ED558CCDULL;
        h ^= h >> 33;
        h *= 0xC4CEB9FE1A85EC53ULL;
        h ^= h >> 33;
        return static_cast<std::size_t>(h) & (m_slots.size() - 1);
    }

    void Place(uint64_t a, uint64_t b, const Obstruction& value)
    {
        std::size_t i = Home(a, b);
        while (m_slots[i].used)
        {
            i = (i + 1) & (m_slots.size() - 1);
        }
        m_slots[i] = Slot{a, b, value, true};
        ++m_used;
    }

    void Grow()
    {
        std::vector<Slot> old;
        old.swap(m_slots);
        m_slots.assign(old.empty() ? kFirstSlots : old.size() * 2, Slot{});
        m_used = 0;
        for (const Slot& s : old)
        {
            if (s.used)
            {
                Place(s.a, s.b, s.value);
            }
        }
    }

    void Clear()
    {
        m_slots.assign(m_slots.size(), Slot{});
        m_used = 0;
    }

    std::vector<Slot> m_slots; // a power of two long, at most half full
    std::size_t m_used = 0;
};

} // namespace cavsim
