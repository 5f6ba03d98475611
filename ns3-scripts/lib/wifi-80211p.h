// The `wifi-80211p` channel kind: ns-3's wifi module with the 802.11p standard (10 MHz OFDM),
// ad-hoc MAC, YANS channel, a constant rate, a path-loss model from ns-3 and, optionally, the
// map's walls. Shared by the lock-step program and, later, the real-time one.
#pragma once

#include "map-obstacles.h"
#include "pair-shadowing-loss.h"
#include "winner-b1-loss.h"

#include "ns3/core-module.h"
#include "ns3/mobility-module.h"
#include "ns3/network-module.h"
#include "ns3/propagation-module.h"
#include "ns3/wifi-module.h"

#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>

namespace cavsim
{

struct WifiSettings
{
    double txPowerDbm = 20;
    std::string propagation = "log-distance";
    std::string obstacles; // grid file, empty for none
    double wallCutDb = 9;        // Sommer et al. beta: per wall crossed
    double wallMetreDb = 0.4;    // Sommer et al. gamma: per metre inside walls
    double antennaHeight = 1.5;
    double noiseFigureDb = 7;
    // Receiver noise in the channel [dBm]; NaN: thermal noise plus the noise figure.
    double noiseFloorDbm = std::numeric_limits<double>::quiet_NaN();
    double shadowingDb = 0; // log-normal sigma; 0 for none
    std::string rate = "OfdmRate6MbpsBW10MHz";
    // The carrier-sense threshold: a frame is detected only above this power and 4 dB of SNR (ns-3's
    // ThresholdPreambleDetectionModel; -82 dBm is also 802.11's minimum sensitivity for 6 Mbit/s on a
    // 10 MHz channel).
    double minimumRssiDbm = -82;
    // ns-3's CCA sensitivity, a 20 MHz figure it lowers by 3 dB on 10 MHz: by default the medium turns
    // busy at -85 dBm, 3 dB under the preamble threshold.
    double ccaSensitivityDbm = -82;
    // `csThreshold` when the scenario sets it [dBm]: frames are detected and keep the medium busy from
    // this power on, as the builtin engine and the published model sense them. NaN: ns-3's defaults above.
    double csThresholdDbm = std::numeric_limits<double>::quiet_NaN();
    double frequencyHz = 5.9e9;
};

// Applies `csThreshold` when given: the preamble threshold at it, and the CCA sensitivity 3 dB over it
// (ns-3 scales that one from 20 MHz to 10 MHz).
inline void
ApplyCarrierSenseThreshold(WifiSettings& s)
{
    if (std::isnan(s.csThresholdDbm))
    {
        return;
    }
    s.minimumRssiDbm = s.csThresholdDbm;
    s.ccaSensitivityDbm = s.csThresholdDbm - 10 * std::log10(10.0 / 20.0);
}

// ns-3's thermal noise in a 10 MHz channel [dBm]: Boltzmann's constant as its InterferenceHelper has it
// (1.3803e-23 J/K) at 290 K, about -103.98 dBm.
inline double
ThermalNoise10MHzDbm()
{
    return 10 * std::log10(1.3803e-23 * 290 * 10e6) + 30;
}

// The PHY's RxNoiseFigure: ns-3 adds it to the thermal noise, so a given noise floor is that floor
// less the thermal noise.
inline double
EffectiveNoiseFigureDb(const WifiSettings& s)
{
    return std::isnan(s.noiseFloorDbm) ? s.noiseFigureDb : s.noiseFloorDbm - ThermalNoise10MHzDbm();
}

inline double
NoiseDbm(const WifiSettings& s)
{
    return ThermalNoise10MHzDbm() + EffectiveNoiseFigureDb(s);
}

// The radio's command-line flags, the same in both channel programs (src/channel/ns3/lockstep/lockstep-argv.ts builds them).
inline void
AddWifiFlags(ns3::CommandLine& cmd, WifiSettings& s)
{
    cmd.AddValue("txPower", "wifi: transmit power [dBm]", s.txPowerDbm);
    cmd.AddValue("propagation", "wifi: log-distance | friis | two-ray | 3gpp-v2v-urban | 3gpp-v2v-highway | winner-b1", s.propagation);
    cmd.AddValue("obstacles", "wifi: occupancy grid file; empty for no obstacles", s.obstacles);
    cmd.AddValue("wallCutLoss", "wifi: attenuation per wall crossed [dB]", s.wallCutDb);
    cmd.AddValue("wallMetreLoss", "wifi: attenuation per metre inside walls [dB]", s.wallMetreDb);
    cmd.AddValue("antennaHeight", "wifi: antenna height [m]", s.antennaHeight);
    cmd.AddValue("noiseFigure", "wifi: receiver noise figure [dB]", s.noiseFigureDb);
    cmd.AddValue("noiseFloor", "wifi: receiver noise in the channel [dBm]; overrides noiseFigure", s.noiseFloorDbm);
    cmd.AddValue("shadowing", "wifi: log-normal shadowing sigma [dB]; 0 for none", s.shadowingDb);
    cmd.AddValue("csThreshold", "wifi: carrier-sense threshold: detection and a busy medium [dBm]", s.csThresholdDbm);
    cmd.AddValue("rate", "wifi: ns-3 WifiMode name", s.rate);
    cmd.AddValue("frequency", "wifi: carrier frequency [Hz]", s.frequencyHz);
}

// The path-loss model named by `propagation`, with walls when a grid is given. `last` is the final
// link of the chain, so a caller may append its own (cavsim appends a probe that records power).
struct WifiChannelParts
{
    ns3::Ptr<ns3::PropagationLossModel> first;
    ns3::Ptr<ns3::PropagationLossModel> last;
    std::unique_ptr<ObstacleGrid> grid;
};

inline WifiChannelParts
BuildPropagation(const WifiSettings& s)
{
    using namespace ns3;
    WifiChannelParts parts;
    if (!s.obstacles.empty())
    {
        parts.grid = std::make_unique<ObstacleGrid>(s.obstacles);
    }
    Ptr<PropagationLossModel> base;
    bool threeGpp = s.propagation == "3gpp-v2v-urban" || s.propagation == "3gpp-v2v-highway";
    if (s.propagation == "log-distance")
    {
        base = CreateObject<LogDistancePropagationLossModel>();
    }
    else if (s.propagation == "friis")
    {
        auto friis = CreateObject<FriisPropagationLossModel>();
        friis->SetFrequency(s.frequencyHz);
        base = friis;
    }
    else if (s.propagation == "two-ray")
    {
        auto twoRay = CreateObject<TwoRayGroundPropagationLossModel>();
        twoRay->SetFrequency(s.frequencyHz);
        base = twoRay;
    }
    else if (threeGpp)
    {
        Ptr<ThreeGppPropagationLossModel> model;
        if (s.propagation == "3gpp-v2v-urban")
        {
            model = CreateObject<ThreeGppV2vUrbanPropagationLossModel>();
        }
        else
        {
            model = CreateObject<ThreeGppV2vHighwayPropagationLossModel>();
        }
        model->SetAttribute("Frequency", DoubleValue(s.frequencyHz));
        // The map decides line of sight; without a map nothing blocks it.
        Ptr<ChannelConditionModel> condition;
        if (parts.grid)
        {
            condition = CreateObject<MapChannelConditionModel>(parts.grid.get());
        }
        else
        {
            condition = CreateObject<AlwaysLosChannelConditionModel>();
        }
        model->SetChannelConditionModel(condition);
        base = model;
    }
    else if (s.propagation == "winner-b1")
    {
        base = CreateObject<WinnerB1LosLoss>(s.frequencyHz, s.antennaHeight);
    }
    else
    {
        throw std::invalid_argument("unknown propagation model " + s.propagation);
    }
    parts.first = base;
    parts.last = base;
    if (parts.grid && !threeGpp)
    {
        auto walls = CreateObject<WallShadowingLoss>(parts.grid.get(), s.wallCutDb, s.wallMetreDb);
        base->SetNext(walls);
        parts.last = walls;
    }
    if (s.shadowingDb > 0)
    {
        auto shadowing = CreateObject<PairShadowingLoss>(s.shadowingDb);
        parts.last->SetNext(shadowing);
        parts.last = shadowing;
    }
    return parts;
}

// The SNR a preamble needs to be detected [dB] (ThresholdPreambleDetectionModel's Threshold), and
// ns-3's default RxSensitivity [dBm].
const double kPreambleSnrDb = 4;
const double kNs3RxSensitivityDbm = -101;

// One 802.11p ad-hoc device per node on one YANS channel using `loss`.
inline ns3::NetDeviceContainer
InstallWifi80211p(const ns3::NodeContainer& nodes, const WifiSettings& s, ns3::Ptr<ns3::PropagationLossModel> loss)
{
    using namespace ns3;
    auto channel = CreateObject<YansWifiChannel>();
    channel->SetPropagationLossModel(loss);
    channel->SetPropagationDelayModel(CreateObject<ConstantSpeedPropagationDelayModel>());
    YansWifiPhyHelper phy;
    phy.SetChannel(channel);
    phy.Set("TxPowerStart", DoubleValue(s.txPowerDbm));
    phy.Set("TxPowerEnd", DoubleValue(s.txPowerDbm));
    phy.Set("RxNoiseFigure", DoubleValue(EffectiveNoiseFigureDb(s)));
    phy.SetPreambleDetectionModel("ns3::ThresholdPreambleDetectionModel", "MinimumRssi", DoubleValue(s.minimumRssiDbm), "Threshold",
                                  DoubleValue(kPreambleSnrDb));
    phy.Set("CcaSensitivity", DoubleValue(s.ccaSensitivityDbm));
    // YANS hands a receiver nothing under RxSensitivity (-101 dBm at 20 MHz): a lower threshold lowers it too.
    if (s.minimumRssiDbm < kNs3RxSensitivityDbm)
    {
        phy.Set("RxSensitivity", DoubleValue(s.minimumRssiDbm));
    }
    WifiHelper wifi;
    wifi.SetStandard(WIFI_STANDARD_80211p);
    wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager", "DataMode", StringValue(s.rate), "ControlMode", StringValue(s.rate),
                                 // broadcasts (beacons) too, not the lowest basic rate
                                 "NonUnicastMode", StringValue(s.rate));
    WifiMacHelper mac;
    mac.SetType("ns3::AdhocWifiMac");
    return wifi.Install(phy, mac, nodes);
}

} // namespace cavsim
