// Checks ObstacleGrid::Trace (ns3-scripts/lib/map-obstacles.h) against the plain walk it replaced:
// every sample every half cell looked up one by one. Usage: obstacle-trace-check <grid> <segments> <seed>
// Prints "segments <n> mismatches <m> cuts <total cuts> metres <total metres>" and the first mismatches.
#include "map-obstacles.h"

#include <cinttypes>
#include <cstdio>
#include <random>

namespace
{

struct Grid
{
    int width = 0, height = 0;
    double resolution = 0, originX = 0, originY = 0;
    std::vector<uint8_t> cells;
};

Grid
ReadGrid(const char* path)
{
    Grid g;
    std::ifstream in(path, std::ios::binary);
    std::string header, magic;
    std::getline(in, header);
    int version = 0;
    std::istringstream(header) >> magic >> version >> g.width >> g.height >> g.resolution >> g.originX >> g.originY;
    g.cells.resize(static_cast<std::size_t>(g.width) * g.height);
    in.read(reinterpret_cast<char*>(g.cells.data()), static_cast<std::streamsize>(g.cells.size()));
    return g;
}

bool
IsWall(const Grid& g, double x, double y)
{
    int64_t col = static_cast<int64_t>(std::floor((x - g.originX) / g.resolution));
    int64_t row = static_cast<int64_t>(std::floor((y - g.originY) / g.resolution));
    if (col < 0 || row < 0 || col >= g.width || row >= g.height)
    {
        return false;
    }
    return g.cells[static_cast<std::size_t>(row) * g.width + col] != 0;
}

cavsim::Obstruction
ReferenceWalk(const Grid& g, double ax, double ay, double bx, double by)
{
    cavsim::Obstruction o;
    double length = std::hypot(bx - ax, by - ay);
    int samples = std::max(1, static_cast<int>(std::ceil(length / (g.resolution / 2))));
    double step = length / samples;
    bool inside = false;
    for (int i = 0; i <= samples; ++i)
    {
        double f = static_cast<double>(i) / samples;
        bool wall = IsWall(g, ax + (bx - ax) * f, ay + (by - ay) * f);
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

} // namespace

int
main(int argc, char** argv)
{
    if (argc != 4)
    {
        std::fprintf(stderr, "usage: %s <grid> <segments> <seed>\n", argv[0]);
        return 2;
    }
    Grid g = ReadGrid(argv[1]);
    cavsim::ObstacleGrid grid(argv[1]);
    long count = std::atol(argv[2]);
    std::mt19937_64 rng(std::strtoull(argv[3], nullptr, 10));
    double margin = 2.0;
    double x0 = g.originX - margin, x1 = g.originX + g.width * g.resolution + margin;
    double y0 = g.originY - margin, y1 = g.originY + g.height * g.resolution + margin;
    std::uniform_real_distribution<double> ux(x0, x1), uy(y0, y1), near(-3.0, 3.0), unit(0.0, 1.0);
    std::uniform_int_distribution<int> col(-40, g.width + 40), row(-40, g.height + 40);
    long mismatches = 0, cuts = 0;
    double metres = 0;
    for (long n = 0; n < count; ++n)
    {
        double ax = ux(rng), ay = uy(rng), bx, by;
        switch (n % 4)
        {
        case 0: // anywhere to anywhere
            bx = ux(rng), by = uy(rng);
            break;
        case 1: // short hops, as between neighbouring cars
            bx = ax + near(rng), by = ay + near(rng);
            break;
        case 2: // corners and edges of cells, along and across the grid's axes
            ax = g.originX + col(rng) * g.resolution, ay = g.originY + row(rng) * g.resolution;
            bx = unit(rng) < 0.5 ? ax : g.originX + col(rng) * g.resolution;
            by = bx == ax ? g.originY + row(rng) * g.resolution : (unit(rng) < 0.5 ? ay : g.originY + row(rng) * g.resolution);
            break;
        default: // a point to itself
            bx = ax, by = ay;
        }
        cavsim::Obstruction want = ReferenceWalk(g, ax, ay, bx, by);
        cavsim::Obstruction got = grid.Trace(ax, ay, bx, by);
        cuts += want.cuts;
        metres += want.metres;
        if (want.cuts != got.cuts || want.metres != got.metres)
        {
            if (++mismatches <= 5)
            {
                std::printf("mismatch (%.17g, %.17g) -> (%.17g, %.17g): cuts %d metres %.17g, trace cuts %d metres %.17g\n",
                            ax, ay, bx, by, want.cuts, want.metres, got.cuts, got.metres);
            }
        }
    }
    std::printf("segments %ld mismatches %ld cuts %ld metres %.3f\n", count, mismatches, cuts, metres);

    // Repeated sums on their own, ties (a step of a whole number of ulps and a half) included.
    long sumMismatches = 0;
    std::uniform_int_distribution<int> times(0, 3000), units(1, 1 << 20), binade(-8, 8);
    for (long n = 0; n < count; ++n)
    {
        double sum = n % 5 == 0 ? 0.0 : std::ldexp(1.0 + unit(rng), binade(rng));
        double step = std::ldexp(0.5 + unit(rng), binade(rng) - 6);
        if (n % 3 == 0 && sum > 0)
        {
            int exponent = 0;
            std::frexp(sum, &exponent);
            step = (units(rng) + 0.5) * std::ldexp(1.0, exponent - 53);
        }
        int k = times(rng);
        double want = sum;
        for (int i = 0; i < k; ++i)
        {
            want += step;
        }
        double got = cavsim::ObstacleGrid::AddRepeatedly(sum, step, k);
        if (want != got && ++sumMismatches <= 5)
        {
            std::printf("sum mismatch %.17g + %d x %.17g: %.17g, closed form %.17g\n", sum, k, step, want, got);
        }
    }
    std::printf("sums %ld mismatches %ld\n", count, sumMismatches);
    return 0;
}
