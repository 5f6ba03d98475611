// Line of sight from the scenario's map: an occupancy grid written by cavsim (src/channel/ns3/lockstep/obstacle-grid-file.ts):
//   line 1: "cavsim-occupancy 1 <width> <height> <resolution> <originX> <originY>"
//   then width*height bytes, 1 = wall, 0 = free; row 0 is the lowest y, column 0 the lowest x.
// A straight segment between two antennas is sampled every half cell; each run of wall cells it
// passes is one wall "cut" and adds to the metres inside walls. This is the obstacle shadowing
// model of Sommer et al. (IEEE WONS 2011, used by Veins): loss = beta * cuts + gamma * metres.
#pragma once

#include "ns3/channel-condition-model.h"
#include "ns3/mobility-model.h"
#include "ns3/propagation-loss-model.h"

#include <cmath>
#include <cstdint>
#include <fstream>
#include <functional>
#include <unordered_map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace cavsim
{

struct Obstruction
{
    int cuts = 0;        // wall runs crossed
    double metres = 0;   // length of the segment inside walls
    bool Blocked() const { return cuts > 0; }
};

class ObstacleGrid
{
  public:
    explicit ObstacleGrid(const std::string& path)
    {
        std::ifstream in(path, std::ios::binary);
        std::string header;
        if (!in || !std::getline(in, header))
        {
            throw std::runtime_error("cannot read obstacle grid " + path);
        }
        std::istringstream fields(header);
        std::string magic;
        int version = 0;
        fields >> magic >> version >> m_width >> m_height >> m_resolution >> m_originX >> m_originY;
        if (magic != "cavsim-occupancy" || version != 1 || m_width <= 0 || m_height <= 0 || !(m_resolution > 0))
        {
            throw std::runtime_error("bad obstacle grid header in " + path);
        }
        m_cells.resize(static_cast<std::size_t>(m_width) * m_height);
        in.read(reinterpret_cast<char*>(m_cells.data()), static_cast<std::streamsize>(m_cells.size()));
        if (in.gcount() != static_cast<std::streamsize>(m_cells.size()))
        {
            throw std::runtime_error("obstacle grid " + path + " is shorter than its header says");
        }
    }

    // Cached per pair of cells: cars move a few cm per step, most queries repeat.
    Obstruction Between(double ax, double ay, double bx, double by) const
    {
        CellKey key{Cell(ax, ay), Cell(bx, by)};
        auto hit = m_cache.find(key);
        if (hit != m_cache.end())
        {
            return hit->second;
        }
        Obstruction o = Walk(ax, ay, bx, by);
        if (m_cache.size() > 1000000)
        {
            m_cache.clear();
        }
        m_cache.emplace(key, o);
        return o;
    }

  private:
    // A cell by (column, row), packed in 32 bits each: cells beyond the map's edge keep distinct keys.
    uint64_t Cell(double x, double y) const
    {
        auto col = static_cast<int32_t>(std::floor((x - m_originX) / m_resolution));
        auto row = static_cast<int32_t>(std::floor((y - m_originY) / m_resolution));
        return (static_cast<uint64_t>(static_cast<uint32_t>(row)) << 32) | static_cast<uint32_t>(col);
    }

    struct CellKey
    {
        uint64_t a;
        uint64_t b;
        bool operator==(const CellKey& o) const { return a == o.a && b == o.b; }
    };

    struct CellKeyHash
    {
        std::size_t operator()(const CellKey& k) const { return std::hash<uint64_t>()(k.a * 0x9E3779B97F4A7C15ULL ^ k.b); }
    };

    bool IsWall(double x, double y) const
    {
        int64_t col = static_cast<int64_t>(std::floor((x - m_originX) / m_resolution));
        int64_t row = static_cast<int64_t>(std::floor((y - m_originY) / m_resolution));
        if (col < 0 || row < 0 || col >= m_width || row >= m_height)
        {
            return false; // beyond the map nothing is known to block
        }
        return m_cells[static_cast<std::size_t>(row) * m_width + col] != 0;
    }

    Obstruction Walk(double ax, double ay, double bx, double by) const
    {
        Obstruction o;
        double length = std::hypot(bx - ax, by - ay);
        int samples = std::max(1, static_cast<int>(std::ceil(length / (m_resolution / 2))));
        double step = length / samples;
        bool inside = false;
        for (int i = 0; i <= samples; ++i)
        {
            double f = static_cast<double>(i) / samples;
            bool wall = IsWall(ax + (bx - ax) * f, ay + (by - ay) * f);
            if (wall && !inside)
            {
                ++o.cuts;
            }
            if (wall && i > 0)
            {
                o.metres += step;
            }
            inside = wall;
        }
        return o;
    }

    int m_width = 0;
    int m_height = 0;
    double m_resolution = 0;
    double m_originX = 0;
    double m_originY = 0;
    std::vector<uint8_t> m_cells;
    mutable std::unordered_map<CellKey, Obstruction, CellKeyHash> m_cache;
};

// Extra attenuation of the map's walls, chained after a path-loss model (friis, two-ray, log-distance).
class WallShadowingLoss : public ns3::PropagationLossModel
{
  public:
    WallShadowingLoss(const ObstacleGrid* grid, double perCutDb, double perMetreDb)
        : m_grid(grid),
          m_perCutDb(perCutDb),
          m_perMetreDb(perMetreDb)
    {
    }

  private:
    double DoCalcRxPower(double txPowerDbm, ns3::Ptr<ns3::MobilityModel> a, ns3::Ptr<ns3::MobilityModel> b) const override
    {
        ns3::Vector pa = a->GetPosition();
        ns3::Vector pb = b->GetPosition();
        Obstruction o = m_grid->Between(pa.x, pa.y, pb.x, pb.y);
        return txPowerDbm - m_perCutDb * o.cuts - m_perMetreDb * o.metres;
    }

    int64_t DoAssignStreams(int64_t) override { return 0; }

    const ObstacleGrid* m_grid;
    double m_perCutDb;
    double m_perMetreDb;
};

// LOS when no wall lies between the antennas, NLOS otherwise: what the 3GPP V2V models ask.
class MapChannelConditionModel : public ns3::ChannelConditionModel
{
  public:
    explicit MapChannelConditionModel(const ObstacleGrid* grid)
        : m_grid(grid)
    {
    }

    ns3::Ptr<ns3::ChannelCondition> GetChannelCondition(ns3::Ptr<const ns3::MobilityModel> a,
                                                        ns3::Ptr<const ns3::MobilityModel> b) const override
    {
        ns3::Vector pa = a->GetPosition();
        ns3::Vector pb = b->GetPosition();
        bool blocked = m_grid != nullptr && m_grid->Between(pa.x, pa.y, pb.x, pb.y).Blocked();
        return ns3::CreateObject<ns3::ChannelCondition>(blocked ? ns3::ChannelCondition::NLOS : ns3::ChannelCondition::LOS);
    }

    int64_t AssignStreams(int64_t) override { return 0; }

  private:
    const ObstacleGrid* m_grid;
};

} // namespace cavsim
