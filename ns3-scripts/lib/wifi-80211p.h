// The `wifi-80211p` channel kind: ns-3's wifi module with the 802.11p standard (10 MHz OFDM),
// ad-hoc MAC, YANS channel, a constant rate, a path-loss model from ns-3 and, optionally, the
// map's walls. Shared by the lock-step program and, later, the real-time one.
#pragma once

#include "map-obstacles.h"

#include "ns3/core-module.h"
#include "ns3/mobility-module.h"
#include "ns3/network-module.h"
#include "ns3/propagation-module.h"
#include "ns3/wifi-module.h"

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
    std::string rate = "OfdmRate6MbpsBW10MHz";
    // A frame is detected only above this power and 4 dB of SNR (ns-3's ThresholdPreambleDetectionModel;
    // -82 dBm is also 802.11's minimum sensitivity for 6 Mbit/s on a 10 MHz channel).
    double minimumRssiDbm = -82;
    double frequencyHz = 5.9e9;
};

// The radio's command-line flags, the same in both channel programs (src/channel/ns3/lockstep/lockstep-argv.ts builds them).
inline void
AddWifiFlags(ns3::CommandLine& cmd, WifiSettings& s)
{
    cmd.AddValue("txPower", "wifi: transmit power [dBm]", s.txPowerDbm);
    cmd.AddValue("propagation", "wifi: log-distance | friis | two-ray | 3gpp-v2v-urban | 3gpp-v2v-highway", s.propagation);
    cmd.AddValue("obstacles", "wifi: occupancy grid file; empty for no obstacles", s.obstacles);
    cmd.AddValue("wallCutLoss", "wifi: attenuation per wall crossed [dB]", s.wallCutDb);
    cmd.AddValue("wallMetreLoss", "wifi: attenuation per metre inside walls [dB]", s.wallMetreDb);
    cmd.AddValue("antennaHeight", "wifi: antenna height [m]", s.antennaHeight);
    cmd.AddValue("noiseFigure", "wifi: receiver noise figure [dB]", s.noiseFigureDb);
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
    return parts;
}

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
    phy.Set("RxNoiseFigure", DoubleValue(s.noiseFigureDb));
    phy.SetPreambleDetectionModel("ns3::ThresholdPreambleDetectionModel", "MinimumRssi", DoubleValue(s.minimumRssiDbm), "Threshold", DoubleValue(4));
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
