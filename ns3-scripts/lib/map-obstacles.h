// Line of sight from the scenario's map: an occupancy grid written by cavsim (src/channel/ns3/lockstep/obstacle-grid-file.ts):
//   line 1: "cavsim-occupancy 1 <width> <height> <resolution> <originX> <originY>"
//   then width*height bytes, 1 = wall, 0 = free; row 0 is the lowest y, column 0 the lowest x.
// A straight segment between two antennas is sampled every half cell; each run of wall cells it
// passes is one wall "cut" and adds to the metres inside walls. This is the obstacle shadowing
// model of Sommer et al. (IEEE WONS 2011, used by Veins): loss = beta * cuts + gamma * metres.
#pragma once

#include "obstruction-cache.h"

#include "ns3/channel-condition-model.h"
#include "ns3/mobility-model.h"
#include "ns3/propagation-loss-model.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace cavsim
{

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
        MeasureReach();
    }

    // Cached per pair of cells: cars move a few cm per step, most queries repeat.
    Obstruction Between(double ax, double ay, double bx, double by) const
    {
        uint64_t a = Cell(ax, ay);
        uint64_t b = Cell(bx, by);
        if (const Obstruction* hit = m_cache.Find(a, b))
        {
            return *hit;
        }
        Obstruction o = Trace(ax, ay, bx, by);
        m_cache.Insert(a, b, o);
        return o;
    }

    // Uncached. Samples every half cell as described above; a run of samples that stays within a cell's
    // reach (below) is settled without looking each sample up, with the same sums.
    Obstruction Trace(double ax, double ay, double bx, double by) const
    {
        Obstruction o;
        double length = std::hypot(bx - ax, by - ay);
        int samples = std::max(1, static_cast<int>(std::ceil(length / (m_resolution / 2))));
        double step = length / samples;
        double cellsPerSample = std::max(std::fabs(bx - ax), std::fabs(by - ay)) / samples / m_resolution;
        double samplesPerCell = cellsPerSample > 0 ? 1 / cellsPerSample : std::numeric_limits<double>::infinity();
        bool inside = false;
        for (int i = 0; i <= samples;)
        {
            double f = static_cast<double>(i) / samples;
            int reach = 0;
            bool wall = Look(ax + (bx - ax) * f, ay + (by - ay) * f, reach);
            if (wall && !inside)
            {
                ++o.cuts;
            }
            if (wall && i > 0)
            {
                o.metres += step;
            }
            inside = wall;
            int alike = std::min(samples - i, SamplesWithin(reach, samplesPerCell));
            if (wall && alike > 0)
            {
                o.metres = AddRepeatedly(o.metres, step, alike);
            }
            i += alike + 1;
        }
        return o;
    }

    // sum + step + step + ... (`times` additions), rounded after each addition exactly as that loop
    // rounds, in a few operations per binade of the sum: within a binade every addition adds the
    // same multiple of the binade's ulp, unless step's remainder is exactly half an ulp (a tie,
    // which depends on the sum's last bit: added one by one).
    static double AddRepeatedly(double sum, double step, int times)
    {
        while (times > 0)
        {
            if (!(sum > 0) || !(step > 0) || !std::isfinite(sum) || !std::isfinite(step))
            {
                sum += step;
                --times;
                continue;
            }
            int exponent = 0;
            std::frexp(sum, &exponent); // sum in [2^(exponent-1), 2^exponent)
            double top = std::ldexp(1.0, exponent);
            double ulp = std::ldexp(1.0, exponent - 53);
            if (step * 2 >= top)
            {
                sum += step;
                --times;
                continue;
            }
            double units = std::floor(step / ulp);
            double rest = step - units * ulp;
            if (rest == ulp / 2)
            {
                sum += step;
                --times;
                continue;
            }
            auto perAddition = static_cast<int64_t>(units) + (rest > ulp / 2 ? 1 : 0);
            auto room = static_cast<int64_t>((top - sum) / ulp); // exact: both are multiples of ulp
            int64_t within = (room - 1) / perAddition;           // additions whose sum stays below top
            if (within <= 0)
            {
                sum += step;
                --times;
                continue;
            }
            int64_t n = std::min<int64_t>(times, within);
            sum += static_cast<double>(n * perAddition) * ulp;
            times -= static_cast<int>(n);
        }
        return sum;
    }

  private:
    // A cell by (column, row), packed in 32 bits each: cells beyond the map's edge keep distinct keys.
    uint64_t Cell(double x, double y) const
    {
        auto col = static_cast<int32_t>(FloorOf((x - m_originX) / m_resolution));
        auto row = static_cast<int32_t>(FloorOf((y - m_originY) / m_resolution));
        return (static_cast<uint64_t>(static_cast<uint32_t>(row)) << 32) | static_cast<uint32_t>(col);
    }

    // Whether (x, y) is in a wall, and its cell's reach: every cell within reach - 1 cells
    // (Chebyshev) is of the same kind. Beyond the map nothing blocks, and no reach is known.
    bool Look(double x, double y, int& reach) const
    {
        int64_t col = FloorOf((x - m_originX) / m_resolution);
        int64_t row = FloorOf((y - m_originY) / m_resolution);
        if (col < 0 || row < 0 || col >= m_width || row >= m_height)
        {
            reach = 0;
            return false;
        }
        std::size_t i = static_cast<std::size_t>(row) * m_width + col;
        reach = m_reach[i];
        return m_cells[i] != 0;
    }

    // std::floor without a library call (baseline x86-64 has no rounding instruction), for values
    // an int64 holds, as cell numbers are.
    static int64_t FloorOf(double v)
    {
        auto t = static_cast<int64_t>(v);
        return t - (static_cast<double>(t) > v ? 1 : 0);
    }

    // How many following samples certainly stay within reach - 1 cells of this one. The slack
    // covers the rounding of the sample positions, far under a hundredth of a cell.
    static int SamplesWithin(int reach, double samplesPerCell)
    {
        constexpr double kSlackCells = 0.01;
        if (reach < 2)
        {
            return 0;
        }
        double alike = (reach - 1 - kSlackCells) * samplesPerCell;
        return alike >= std::numeric_limits<int>::max() ? std::numeric_limits<int>::max() : static_cast<int>(alike);
    }

    // Each cell's Chebyshev distance, in cells, to the nearest cell of the other kind (a wall's to
    // free space, free space's to a wall), capped at 255. Cells beyond the map count as free.
    // Two passes of the chessboard distance transform, once for each kind.
    void MeasureReach()
    {
        constexpr int kFar = 255;
        m_reach.assign(m_cells.size(), kFar);
        auto at = [this](int col, int row) { return static_cast<std::size_t>(row) * m_width + col; };
        // What a neighbour contributes to a cell: 1 if it is of the other kind (or beyond the map,
        // for a wall), its own reach + 1 if it is of the same kind.
        auto via = [&](std::size_t self, int col, int row) -> int {
            bool selfWall = m_cells[self] != 0;
            if (col < 0 || row < 0 || col >= m_width || row >= m_height)
            {
                return selfWall ? 1 : kFar;
            }
            std::size_t n = at(col, row);
            bool wall = m_cells[n] != 0;
            return wall != selfWall ? 1 : std::min(kFar, m_reach[n] + 1);
        };
        for (int row = 0; row < m_height; ++row)
        {
            for (int col = 0; col < m_width; ++col)
            {
                std::size_t i = at(col, row);
                int r = std::min({static_cast<int>(m_reach[i]), via(i, col - 1, row), via(i, col - 1, row - 1), via(i, col, row - 1), via(i, col + 1, row - 1)});
                m_reach[i] = static_cast<uint8_t>(r);
            }
        }
        for (int row = m_height - 1; row >= 0; --row)
        {
            for (int col = m_width - 1; col >= 0; --col)
            {
                std::size_t i = at(col, row);
                int r = std::min({static_cast<int>(m_reach[i]), via(i, col + 1, row), via(i, col + 1, row + 1), via(i, col, row + 1), via(i, col - 1, row + 1)});
                m_reach[i] = static_cast<uint8_t>(r);
            }
        }
    }

    int m_width = 0;
    int m_height = 0;
    double m_resolution = 0;
    double m_originX = 0;
    double m_originY = 0;
    std::vector<uint8_t> m_cells;
    std::vector<uint8_t> m_reach;
    mutable ObstructionCache m_cache;
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
