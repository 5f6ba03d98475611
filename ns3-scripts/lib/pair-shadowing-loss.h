// Log-normal shadowing per pair of nodes (the wifi `shadowing` key): each unordered pair carries a
// Gaussian value of standard deviation sigma [dB], the same both ways, that decorrelates as the two
// move (Gudmundson, Electronics Letters 27(23), 1991):
//   S_new = rho S_old + sqrt(1 - rho^2) sigma N(0, 1),  rho = exp(-moved / decorrelation distance)
// where `moved` is how far both nodes moved since the pair's last draw. Draws come from an ns-3
// random stream, so a run number repeats its shadowing.
#pragma once

#include "ns3/mobility-model.h"
#include "ns3/node.h"
#include "ns3/propagation-loss-model.h"
#include "ns3/random-variable-stream.h"

#include <cmath>
#include <map>
#include <utility>

namespace cavsim
{

// Shadowing decorrelation distance of V2V links, 3GPP TR 37.885 (V2X evaluation methodology): 25 m,
// the highway value, used here for every road. (ns-3's ThreeGppV2v* models, which carry their own
// shadowing, take 10 m line of sight and 13 m without from the same report's urban table.)
const double kShadowingDecorrelationM = 25;

class PairShadowingLoss : public ns3::PropagationLossModel
{
  public:
    explicit PairShadowingLoss(double sigmaDb)
        : m_sigmaDb(sigmaDb),
          m_normal(ns3::CreateObject<ns3::NormalRandomVariable>())
    {
        m_normal->SetAttribute("Mean", ns3::DoubleValue(0));
        m_normal->SetAttribute("Variance", ns3::DoubleValue(1));
    }

  private:
    struct Pair
    {
        double valueDb = 0;
        ns3::Vector low;  // where the node with the lower id was at the last draw
        ns3::Vector high; // and the other
    };

    double DoCalcRxPower(double txPowerDbm, ns3::Ptr<ns3::MobilityModel> a, ns3::Ptr<ns3::MobilityModel> b) const override
    {
        uint32_t ia = a->GetObject<ns3::Node>()->GetId();
        uint32_t ib = b->GetObject<ns3::Node>()->GetId();
        bool aLow = ia < ib;
        ns3::Vector low = aLow ? a->GetPosition() : b->GetPosition();
        ns3::Vector high = aLow ? b->GetPosition() : a->GetPosition();
        auto key = std::make_pair(aLow ? ia : ib, aLow ? ib : ia);
        auto found = m_pairs.find(key);
        if (found == m_pairs.end())
        {
            Pair fresh{m_sigmaDb * m_normal->GetValue(), low, high};
            found = m_pairs.emplace(key, fresh).first;
        }
        else
        {
            Pair& p = found->second;
            double moved = ns3::CalculateDistance(low, p.low) + ns3::CalculateDistance(high, p.high);
            if (moved > 0)
            {
                double rho = std::exp(-moved / kShadowingDecorrelationM);
                p.valueDb = rho * p.valueDb + std::sqrt(1 - rho * rho) * m_sigmaDb * m_normal->GetValue();
                p.low = low;
                p.high = high;
            }
        }
        return txPowerDbm - found->second.valueDb;
    }

    int64_t DoAssignStreams(int64_t stream) override
    {
        m_normal->SetStream(stream);
        return 1;
    }

    double m_sigmaDb;
    ns3::Ptr<ns3::NormalRandomVariable> m_normal;
    mutable std::map<std::pair<uint32_t, uint32_t>, Pair> m_pairs;
};

} // namespace cavsim
