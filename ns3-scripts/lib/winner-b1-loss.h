// The `winner-b1` path loss: WINNER+ B1 (urban micro-cell) line of sight with a free-space floor,
// as Sepulcre et al. use it for 802.11p (IEEE TVT 71(1), 2022; the authors' get_PL_SH.m). The same
// formula as test/support/reference/sepulcre-80211p.ts (pathLossDb, breakpointM), with the
// scenario's antenna height at both ends and the channel's carrier frequency.
#pragma once

#include "ns3/mobility-model.h"
#include "ns3/propagation-loss-model.h"

#include <algorithm>
#include <cmath>

namespace cavsim
{

// Average height of the environment (cars, people) the effective antenna height is taken above:
// Sepulcre et al.'s code, 0.5 m, so a 1.5 m antenna is 1 m above it.
const double kWinnerEnvironmentHeightM = 0.5;
// The model is not fitted below 3 m; closer links take the loss at 3 m.
const double kWinnerMinDistanceM = 3;

// Breakpoint distance d'BP = 4 h'tx h'rx fc / c [m].
inline double
WinnerB1BreakpointM(double frequencyHz, double antennaHeightM)
{
    double h = antennaHeightM - kWinnerEnvironmentHeightM;
    return 4 * h * h * frequencyHz / 3e8;
}

// Median path loss [dB] at `distanceM`:
//   d <  d'BP: 22.7 log10 d + 27 + 20 log10(fc/GHz)
//   d >= d'BP: 40 log10 d + 7.56 - 17.3 log10 h'tx - 17.3 log10 h'rx + 2.7 log10(fc/GHz)
// and never below free space, 20 log10 d + 46.4 + 20 log10(fc/5 GHz).
inline double
WinnerB1PathLossDb(double distanceM, double frequencyHz, double antennaHeightM)
{
    double d = std::max(std::abs(distanceM), kWinnerMinDistanceM);
    double fGHz = frequencyHz / 1e9;
    double h = antennaHeightM - kWinnerEnvironmentHeightM;
    double winner = d < WinnerB1BreakpointM(frequencyHz, antennaHeightM)
                        ? 22.7 * std::log10(d) + 27 + 20 * std::log10(fGHz)
                        : 40 * std::log10(d) + 7.56 - 17.3 * std::log10(h) - 17.3 * std::log10(h) + 2.7 * std::log10(fGHz);
    double freeSpace = 20 * std::log10(d) + 46.4 + 20 * std::log10(fGHz / 5);
    return std::max(winner, freeSpace);
}

class WinnerB1LosLoss : public ns3::PropagationLossModel
{
  public:
    WinnerB1LosLoss(double frequencyHz, double antennaHeightM)
        : m_frequencyHz(frequencyHz),
          m_antennaHeightM(antennaHeightM)
    {
    }

  private:
    double DoCalcRxPower(double txPowerDbm, ns3::Ptr<ns3::MobilityModel> a, ns3::Ptr<ns3::MobilityModel> b) const override
    {
        return txPowerDbm - WinnerB1PathLossDb(a->GetDistanceFrom(b), m_frequencyHz, m_antennaHeightM);
    }

    int64_t DoAssignStreams(int64_t) override { return 0; }

    double m_frequencyHz;
    double m_antennaHeightM;
};

} // namespace cavsim
